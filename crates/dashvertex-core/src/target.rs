//! Engine targets (`spec/targets.md`): what each engine's glTF importer reads of a
//! skinned primitive's influences, so that a validator can say what it would get wrong
//! and a writer can write what fits it. Every fact is sourced in the spec.

/// What an engine does with influence sets beyond the ones it reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExtraSets {
    /// Every set is read (the generic glTF rule).
    Read,
    /// Later sets are loaded but not used: their weight is lost.
    Ignored,
    /// A file with more than the sets it reads is refused at import.
    Rejected,
}

/// One engine's import of skinned glTF.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Target {
    /// The name `--target` takes.
    pub name: &'static str,
    /// The engine and importer, for messages.
    pub engine: &'static str,
    /// Influence sets read (sets 0 … n − 1); `None`: all.
    pub sets_read: Option<usize>,
    /// What happens to further sets.
    pub extra_sets: ExtraSets,
    /// Joints one skin may have and still render everywhere the engine runs; `None`:
    /// no fixed limit.
    pub max_joints: Option<usize>,
    /// The largest joint index the engine can store (UNSIGNED_SHORT everywhere).
    pub max_joint_index: u32,
    /// Whether the importer renormalizes the weights it reads.
    pub renormalizes: bool,
}

impl Target {
    /// Influences per vertex the engine reads (`None`: all).
    pub fn influences(&self) -> Option<usize> {
        self.sets_read.map(|s| s * crate::SLOTS)
    }

    /// The target named `name`, if there is one.
    pub fn named(name: &str) -> Option<&'static Target> {
        TARGETS.iter().find(|t| t.name == name)
    }
}

const U16: u32 = 65535;

/// Every target, the generic glTF rule first.
pub const TARGETS: &[Target] = &[
    Target {
        name: "gltf",
        engine: "glTF 2.0 (any conforming reader)",
        sets_read: None,
        extra_sets: ExtraSets::Read,
        max_joints: None,
        max_joint_index: U16,
        renormalizes: false,
    },
    Target {
        name: "threejs",
        engine: "three.js (GLTFLoader)",
        sets_read: Some(1),
        extra_sets: ExtraSets::Ignored,
        max_joints: None,
        max_joint_index: U16,
        renormalizes: true,
    },
    Target {
        name: "babylonjs",
        engine: "Babylon.js (glTF loader)",
        sets_read: Some(2),
        extra_sets: ExtraSets::Ignored,
        max_joints: None,
        max_joint_index: U16,
        renormalizes: false,
    },
    Target {
        name: "godot",
        engine: "Godot 4 (glTF importer)",
        sets_read: Some(2),
        extra_sets: ExtraSets::Ignored,
        max_joints: None,
        max_joint_index: U16,
        renormalizes: true,
    },
    Target {
        name: "unity",
        engine: "Unity (glTFast)",
        sets_read: Some(1),
        extra_sets: ExtraSets::Ignored,
        max_joints: None,
        max_joint_index: U16,
        renormalizes: false,
    },
    Target {
        name: "unreal",
        engine: "Unreal Engine 5 (Interchange glTF)",
        sets_read: Some(1),
        extra_sets: ExtraSets::Ignored,
        max_joints: None,
        max_joint_index: U16,
        renormalizes: false,
    },
    Target {
        name: "bevy",
        engine: "Bevy (bevy_gltf)",
        sets_read: Some(1),
        extra_sets: ExtraSets::Ignored,
        max_joints: Some(256),
        max_joint_index: U16,
        renormalizes: false,
    },
    Target {
        name: "defold",
        engine: "Defold (model importer)",
        sets_read: Some(1),
        extra_sets: ExtraSets::Rejected,
        max_joints: None,
        max_joint_index: U16,
        renormalizes: false,
    },
];

/// The names of every target, for help texts.
pub fn names() -> impl Iterator<Item = &'static str> {
    TARGETS.iter().map(|t| t.name)
}
