//! Loading FBX bytes into a ufbx scene, within dash's limits.

use dashvertex_core::Limits;

use crate::FbxError;

/// Fixed memory ufbx may use besides what scales with the input, per allocator.
const BASE_MEMORY: u64 = 64 << 20;
/// Memory ufbx may use per input byte, per allocator (binary FBX arrays are often
/// zlib-compressed; a real file inflates a few times, a bomb thousands of times).
const MEMORY_PER_BYTE: u64 = 128;
/// Allocations ufbx may make: a fixed number plus this many per input byte.
const ALLOCATIONS_PER_BYTE: u64 = 4;
/// Deepest node hierarchy read; deeper is refused (ufbx's `NodeDepthLimit`).
pub const NODE_DEPTH_LIMIT: u32 = 4096;

/// An FBX scene read by ufbx, converted to glTF's space: metres, +Y up, right-handed
/// (`spec/fbx.md`), with the file's own axes and unit kept for the message that says so.
pub struct Scene {
    pub(crate) root: ufbx::SceneRoot,
    /// The file's unit, in metres (0.01 for centimetres).
    pub unit_meters: f64,
    /// The file's up axis, as written (`+Z`, `+Y`, …).
    pub up_axis: &'static str,
    /// Whether the file is ASCII FBX.
    pub ascii: bool,
    /// The FBX version (7400 for 7.4).
    pub version: u32,
    /// The file's size in bytes (ufbx's memory bound for baking derives from it).
    pub(crate) input_len: u64,
}

impl std::fmt::Debug for Scene {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scene")
            .field("version", &self.version)
            .field("ascii", &self.ascii)
            .field("unit_meters", &self.unit_meters)
            .field("up_axis", &self.up_axis)
            .finish_non_exhaustive()
    }
}

/// The file's up axis as its `GlobalSettings` write it (`UpAxis` 0, 1, 2 for X, Y, Z and
/// `UpAxisSign`); FBX's default, +Y, when they are absent.
fn up_axis(settings: &ufbx::SceneSettings) -> &'static str {
    let int = |name: &str, default: i64| {
        ufbx::find_prop(&settings.props, name).map_or(default, |p| p.value_int)
    };
    match (int("UpAxis", 1), int("UpAxisSign", 1) < 0) {
        (0, false) => "+X",
        (0, true) => "-X",
        (2, false) => "+Z",
        (2, true) => "-Z",
        (_, true) => "-Y",
        _ => "+Y",
    }
}

/// ufbx's memory bound, per allocator, for an input of `len` bytes.
fn memory_limit(len: u64) -> usize {
    let bytes = BASE_MEMORY.saturating_add(len.saturating_mul(MEMORY_PER_BYTE));
    usize::try_from(bytes).unwrap_or(usize::MAX)
}

/// ufbx's allocation-count bound for an input of `len` bytes.
fn allocation_limit(len: u64) -> usize {
    usize::try_from((1u64 << 20).saturating_add(len.saturating_mul(ALLOCATIONS_PER_BYTE)))
        .unwrap_or(usize::MAX)
}

pub(crate) fn allocator(len: u64) -> ufbx::AllocatorOpts {
    ufbx::AllocatorOpts {
        memory_limit: memory_limit(len),
        allocation_limit: allocation_limit(len),
        ..Default::default()
    }
}

/// The options every load uses: FBX only (never OBJ), no external file (embedded images
/// are kept: they are part of the input, and the conversion writes them), raw skin
/// weights (ufbx's clean-up off), geometry in metres with +Y up and geometric transforms
/// applied to the vertices.
fn options(len: u64) -> ufbx::LoadOpts<'static> {
    ufbx::LoadOpts {
        temp_allocator: allocator(len),
        result_allocator: allocator(len),
        file_format: ufbx::FileFormat::Fbx,
        no_format_from_extension: true,
        load_external_files: false,
        ignore_embedded: false,
        clean_skin_weights: false,
        node_depth_limit: NODE_DEPTH_LIMIT,
        target_axes: ufbx::CoordinateAxes {
            right: ufbx::CoordinateAxis::PositiveX,
            up: ufbx::CoordinateAxis::PositiveY,
            front: ufbx::CoordinateAxis::PositiveZ,
        },
        target_unit_meters: 1.0,
        space_conversion: ufbx::SpaceConversion::ModifyGeometry,
        geometry_transform_handling: ufbx::GeometryTransformHandling::ModifyGeometry,
        inherit_mode_handling: ufbx::InheritModeHandling::Compensate,
        generate_missing_normals: true,
        ..Default::default()
    }
}

/// Reads FBX `bytes` within `limits`: ufbx's memory and allocations are bounded by the
/// input's size (`spec/fbx.md`), and the vertices, bones and influence sets it holds by
/// `limits` (`--max-vertices`, `--max-bones`, `--max-sets`).
pub fn load(bytes: &[u8], limits: &Limits) -> Result<Scene, FbxError> {
    limits
        .check_input(bytes.len() as u64)
        .map_err(|e| FbxError::Limit(e.to_string()))?;
    let root = ufbx::load_memory(bytes, options(bytes.len() as u64)).map_err(|e| {
        use ufbx::ErrorType as T;
        let what = format!("{} ({:?})", e.description, e.type_);
        match e.type_ {
            T::MemoryLimit | T::AllocationLimit | T::OutOfMemory => FbxError::Limit(format!(
                "{what}: reading it needs more than the {} MiB and {} allocations a \
                 {}-byte FBX file may use (64 MiB and 2^20 allocations, plus 128 bytes and 4 \
                 allocations per input byte: spec/fbx.md §1)",
                memory_limit(bytes.len() as u64) >> 20,
                allocation_limit(bytes.len() as u64),
                bytes.len()
            )),
            T::NodeDepthLimit => {
                FbxError::Limit(format!("{what}: nodes nest deeper than {NODE_DEPTH_LIMIT}"))
            }
            _ => FbxError::Read(what),
        }
    })?;
    let scene = Scene {
        unit_meters: root.settings.original_unit_meters,
        up_axis: up_axis(&root.settings),
        ascii: root.metadata.ascii,
        version: root.metadata.version,
        input_len: bytes.len() as u64,
        root,
    };
    scene.check_counts(limits)?;
    Ok(scene)
}

impl Scene {
    /// The ufbx scene.
    pub(crate) fn ufbx(&self) -> &ufbx::Scene {
        &self.root
    }

    /// Refuses a scene with more control points, bones or influences than `limits` allow.
    fn check_counts(&self, limits: &Limits) -> Result<(), FbxError> {
        let s = self.ufbx();
        let lim = |e: dashvertex_core::LimitError| FbxError::Limit(e.to_string());
        let points: u64 = s.meshes.iter().map(|m| m.num_vertices as u64).sum();
        limits.check_vertices(points).map_err(lim)?;
        let corners: u64 = s.meshes.iter().map(|m| m.num_indices as u64).sum();
        limits.check_vertices(corners).map_err(lim)?;
        limits.check_bones(s.nodes.len() as u64).map_err(lim)?;
        let most = s
            .skin_deformers
            .iter()
            .map(|d| d.max_weights_per_vertex as u64)
            .max()
            .unwrap_or(0);
        limits.check_sets(most.div_ceil(4)).map_err(lim)?;
        Ok(())
    }

    /// The sentence that says how the scene was converted: from the file's unit and up
    /// axis to glTF's metres and +Y up.
    pub fn conversion(&self) -> String {
        format!(
            "FBX {} {} ({} m per unit, {} up) converted to metres and +Y up",
            self.version,
            if self.ascii { "ASCII" } else { "binary" },
            self.unit_meters,
            self.up_axis
        )
    }

    /// Number of skin deformers.
    pub fn skin_count(&self) -> usize {
        self.ufbx().skin_deformers.len()
    }

    /// Number of animation stacks.
    pub fn animation_count(&self) -> usize {
        self.ufbx().anim_stacks.len()
    }
}
