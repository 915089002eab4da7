//! The rule catalogue: every diagnostic code, its severity, the spec section it enforces
//! and the official Khronos glTF-Validator code it corresponds to.
//!
//! `spec/validation.md` has one table row per code; a test keeps the two in step.

use serde::Serialize;

/// How serious a finding is.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// A note; never makes a file invalid.
    Info,
    /// Suspicious but allowed; invalid only with `--deny warnings`.
    Warning,
    /// The file breaks a MUST of the specification.
    Error,
}

impl Severity {
    /// `"info"`, `"warning"` or `"error"`, as the JSON report and the rule table of
    /// `spec/validation.md` spell it (text output says `note` for info).
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

macro_rules! codes {
    ($( $(#[doc = $doc:literal])* $name:ident = $sev:ident, $spec:literal, $gltf:literal, $help:literal; )*) => {
        /// A stable diagnostic code.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #[allow(non_camel_case_types, clippy::upper_case_acronyms)]
        #[non_exhaustive]
        pub enum Code {
            $( $(#[doc = $doc])* $name, )*
        }

        impl Code {
            /// Every code, in catalogue order.
            pub const ALL: &'static [Code] = &[ $( Code::$name, )* ];

            /// The code as written in reports (`WEIGHT_NEGATIVE`).
            pub fn as_str(self) -> &'static str {
                match self { $( Code::$name => stringify!($name), )* }
            }

            /// The severity the catalogue gives the code.
            /// [`Options::severity_of`](crate::Options::severity_of) gives the one it is
            /// reported with, once per-code levels and `deny_warnings` apply.
            pub fn severity(self) -> Severity {
                match self { $( Code::$name => Severity::$sev, )* }
            }

            /// The specification section the rule enforces.
            pub fn spec(self) -> &'static str {
                match self { $( Code::$name => $spec, )* }
            }

            /// The official glTF-Validator code(s) this one covers, if any.
            pub fn gltf(self) -> &'static str {
                match self { $( Code::$name => $gltf, )* }
            }

            /// The official glTF-Validator codes this one covers, one by one.
            pub fn khronos(self) -> impl Iterator<Item = &'static str> {
                self.gltf().split(", ").filter(|c| !c.is_empty())
            }

            /// What the code means, in one sentence (its doc comment here, and its row
            /// in spec/validation.md).
            pub fn summary(self) -> &'static str {
                match self { $( Code::$name => concat!($($doc),*).trim_ascii(), )* }
            }

            /// A one-line hint on how to fix it, if there is one.
            pub fn help(self) -> Option<&'static str> {
                match self { $( Code::$name => if $help.is_empty() { None } else { Some($help) }, )* }
            }

            /// Looks a code up by its name.
            pub fn parse(s: &str) -> Option<Code> {
                match s { $( stringify!($name) => Some(Code::$name), )* _ => None }
            }
        }
    };
}

codes! {
    /// The file could not be read.
    IO_ERROR = Error, "—", "IO_ERROR", "";
    /// The file is neither DashVertex JSON, a DMX container, raw records, glTF nor FBX.
    FORMAT_UNKNOWN = Error, "dashvertex.md §10.1", "", "name the input's format, or check the file";
    /// The file's name says one format and its bytes another; the bytes win.
    FORMAT_NAME_MISMATCH = Info, "validation.md §7", "", "rename the file to match what it holds";
    /// The input holds no bytes.
    EMPTY_INPUT = Error, "dashvertex.md §10.1", "", "an empty file is no format: check how it was written";
    /// A resource limit was exceeded.
    LIMIT_EXCEEDED = Error, "dashvertex.md §12", "", "raise the limit on vertices, bones, influence sets or input bytes if the file is trusted";
    /// The text is not JSON.
    JSON_SYNTAX = Error, "dashvertex.md §3.1 [J1 J11]", "", "";
    /// The JSON does not have the DashVertex shape (the JSON Schema rejects it).
    JSON_STRUCTURE = Error, "dashvertex.md §3 [J2 J5 J6 J8 J9 N4]", "", "see schemas/dashvertex.schema.json";
    /// A skinIndex/skinWeight array has more than 4 entries, or the two differ in length.
    SKIN_ARRAY_LENGTH = Error, "dashvertex.md §3.2 [J4]", "", "a set holds 4 influences; put more in skinSets, and give skinIndex and skinWeight equal lengths";
    /// skinIndex without skinWeight (or the reverse), or skinSets without set 0.
    SKIN_ARRAY_UNPAIRED = Error, "dashvertex.md §3.2 [J3 J7]", "", "give skinIndex and skinWeight together";
    /// The binary container is damaged (the codec's error kind is in the message).
    BINARY_STRUCTURE = Error, "dashvertex.md §10 [B1–B9]", "", "";
    /// Non-zero bytes lie outside every section.
    UNREFERENCED_BYTES = Warning, "dashvertex.md §10.2 [B7]", "", "dash will not rewrite this file unless asked to drop the unreferenced bytes";
    /// A vertex record's `index` is not its position.
    VERTEX_INDEX = Error, "dashvertex.md §9 [X1]", "", "readers use the position; converting the file rewrites the index";
    /// A position is NaN or infinite (a DashVertex vertex, or an element of a glTF
    /// POSITION accessor).
    POSITION_NON_FINITE = Error, "dashvertex.md §2, validation.md §6", "ACCESSOR_INVALID_FLOAT", "";
    /// A weight is NaN or infinite.
    WEIGHT_NON_FINITE = Error, "dashvertex.md §8", "ACCESSOR_INVALID_FLOAT", "";
    /// A weight is negative.
    WEIGHT_NEGATIVE = Error, "dashvertex.md §8", "ACCESSOR_WEIGHTS_NEGATIVE", "weights are in [0, 1]";
    /// A weight is above 1.
    WEIGHT_ABOVE_ONE = Error, "dashvertex.md §8", "", "weights are in [0, 1]; rescale the vertex's weights";
    /// A weight is -0.0.
    WEIGHT_NEGATIVE_ZERO = Warning, "dashvertex.md §8", "", "write +0.0; some tools treat -0.0 as a used slot";
    /// A weight is subnormal: it counts as an influence but has no effect.
    WEIGHT_SUBNORMAL = Warning, "dashvertex.md §8", "", "set it to 0 (and its bone to 0)";
    /// The weights of a vertex do not sum to 1 within the glTF tolerance (profile gltf).
    WEIGHT_SUM = Error, "dashvertex.md §8, validation.md §3", "ACCESSOR_WEIGHTS_NON_NORMALIZED", "renormalize the weights: fix the file, or reduce it with unit normalization";
    /// Normalized integer weights do not sum to exactly 255 or 65535 (glTF).
    UNORM_SUM = Error, "validation.md §3", "ACCESSOR_WEIGHTS_NON_NORMALIZED", "adjust the largest weight by the deficit (largest-remainder rounding)";
    /// A skinned vertex has no non-zero weight (profile dash).
    WEIGHTS_ALL_ZERO = Warning, "dashvertex.md §8", "", "bind it to a bone (fix it with the zero-sum policy nearest or root), or mark the mesh unskinned";
    /// A bone index is beyond the skeleton.
    BONE_INDEX_RANGE = Error, "dashvertex.md §1, §7", "ACCESSOR_JOINTS_INDEX_OOB", "";
    /// With --target: weight in influence sets the engine does not read.
    TARGET_SETS_IGNORED = Error, "targets.md §3", "", "reduce or fix the file for that engine, to what it reads";
    /// With --target: more influence sets than the engine accepts; it refuses the file.
    TARGET_SETS_REJECTED = Error, "targets.md §3", "", "fix the file for that engine: the influences folded into the sets it reads";
    /// With --target: a skin with more joints than the engine renders.
    TARGET_JOINTS = Error, "targets.md §3", "", "split the mesh for that engine into parts of at most that many joints (one mesh, node and skin per part); no rewrite of the weights helps";
    /// With --target: a joint index wider than the engine stores.
    TARGET_INDEX_WIDTH = Error, "targets.md §3", "", "renumber the bones (a manifest) so the used ones come first";
    /// A bone index with non-zero weight names a bone the manifest marks removed.
    BONE_REMOVED = Error, "validation.md §2", "", "the bone left the skeleton: reduce the mesh again with the current manifest, or restore the bone";
    /// With `--manifest --locked`: a glTF joint with non-zero weight whose bone the
    /// manifest does not have (by name or alias).
    BONE_NOT_IN_MANIFEST = Error, "validation.md §2", "", "add the bone to the manifest (update it from the file), or weight that vertex on a bone the manifest has";
    /// With `--manifest`: a glTF skin has Blender's `neutral_bone`, the joint its glTF
    /// exporter adds to hold vertices no bone weights.
    NEUTRAL_BONE = Warning, "validation.md §2", "", "weight those vertices to a real bone in Blender (Weight Paint) and export again, or allow NEUTRAL_BONE to keep the joint on purpose";
    /// A glTF skin's joint order differs from the bone manifest's (`--manifest`): a joint
    /// whose index is not the manifest's for its bone (or, with `--locked`, a bone the
    /// manifest does not have). An error with `--locked`.
    JOINT_ORDER = Warning, "validation.md §2", "", "remap the file's joints to the manifest's order";
    /// The same bone carries non-zero weight twice in one vertex (across all sets).
    BONE_DUPLICATE = Error, "dashvertex.md §1", "ACCESSOR_JOINTS_INDEX_DUPLICATE", "merge the two weights into one slot";
    /// An unused slot (weight 0) names a bone other than 0.
    PADDING_BONE = Warning, "dashvertex.md §1 [I3], §5", "ACCESSOR_JOINTS_USED_ZERO_WEIGHT", "set the bone index of unused slots to 0";
    /// Bone indices were not range-checked: no skeleton is known.
    BONE_RANGE_UNCHECKED = Info, "validation.md §2", "", "give the number of bones, or a manifest";
    /// A later set holds a heavier influence than a used slot of an earlier set.
    SET_ORDER = Warning, "dashvertex.md §1", "", "sort influences heaviest first across sets; a client that reads set 0 only loses the heavier one";
    /// A later set has a used slot while an earlier set has a free one.
    SET_GAP = Warning, "dashvertex.md §1", "", "move the influence into the free slot of the earlier set";
    /// The last influence set(s) are all zero for every vertex.
    SET_TRAILING_ZERO = Warning, "dashvertex.md §4", "", "drop the empty set(s)";
    /// The skinned/unskinned toggle contradicts the data.
    SKINNED_FLAG = Error, "dashvertex.md §6 [T1 T2]", "", "set isSkinned to 1, or clear the skin fields";
    /// A bone name is empty, longer than 31 bytes, or contains NUL.
    BONE_NAME_INVALID = Error, "dashvertex.md §7 [S1]", "", "";
    /// Two bones have the same name.
    BONE_NAME_DUPLICATE = Error, "dashvertex.md §7 [S1]", "", "names are the stable identity of bones";
    /// A bone's parent index is beyond the skeleton.
    BONE_PARENT_RANGE = Error, "dashvertex.md §7 [S2]", "", "";
    /// A bone's parent does not come before it.
    BONE_PARENT_ORDER = Error, "dashvertex.md §7 [S2]", "", "order bones parents first";
    /// Bone 0 has a parent, or another bone has none: not exactly one root.
    BONE_ROOT = Error, "dashvertex.md §7 [S2]", "", "";
    /// A bone record's `index` is not its position.
    BONE_RECORD_INDEX = Error, "dashvertex.md §9 [X1]", "", "";
    /// A bone transform has a NaN or infinite component.
    BONE_TRANSFORM_NON_FINITE = Error, "dashvertex.md §7", "", "";
    /// The GLB container is damaged.
    GLTF_GLB = Error, "validation.md §6", "GLB_INVALID_MAGIC, GLB_INVALID_VERSION, GLB_LENGTH_TOO_SMALL, GLB_LENGTH_MISMATCH, GLB_CHUNK_LENGTH_UNALIGNED, GLB_CHUNK_TOO_BIG, GLB_UNEXPECTED_END_OF_HEADER, GLB_UNEXPECTED_END_OF_CHUNK_HEADER, GLB_UNEXPECTED_END_OF_CHUNK_DATA, GLB_UNEXPECTED_FIRST_CHUNK, GLB_DUPLICATE_CHUNK, GLB_UNEXPECTED_BIN_CHUNK, GLB_EMPTY_CHUNK", "";
    /// Bytes follow the length a GLB header declares (padding some writers leave).
    GLTF_GLB_EXTRA_DATA = Warning, "validation.md §6", "GLB_EXTRA_DATA", "drop the bytes after the declared length, or declare them";
    /// The glTF JSON is not JSON, or a member has the wrong type.
    GLTF_JSON = Error, "validation.md §6", "INVALID_JSON, TYPE_MISMATCH, ARRAY_TYPE_MISMATCH", "";
    /// A buffer's data is unavailable or shorter than its byteLength.
    GLTF_BUFFER = Error, "validation.md §6", "IO_ERROR, BUFFER_EXTERNAL_BYTELENGTH_MISMATCH, BUFFER_BYTE_LENGTH_MISMATCH, BUFFER_MISSING_GLB_DATA", "";
    /// A buffer without `uri` that is not the GLB binary chunk: a placeholder whose data
    /// are not checked.
    GLTF_BUFFER_PLACEHOLDER = Info, "validation.md §6", "", "";
    /// A buffer `uri` with a scheme (`https:`): not read, so its data are not checked.
    GLTF_BUFFER_NOT_RELATIVE = Warning, "validation.md §6, security.md §1", "NON_RELATIVE_URI", "put the buffer beside the glTF file, or embed it";
    /// A buffer `uri` that is not a URI reference, or a data URI whose media type is not a
    /// buffer's.
    GLTF_URI = Error, "validation.md §6", "INVALID_URI, BUFFER_DATA_URI_MIME_TYPE_INVALID", "data URIs of buffers are application/octet-stream or application/gltf-buffer";
    /// An index names an object that does not exist (a buffer view's buffer, a node's
    /// mesh, skin, child or camera, a scene's node, a skin's skeleton, an accessor's buffer
    /// views, a primitive's indices, attributes, targets or material, an animation's
    /// samplers, inputs, outputs and target nodes, the default scene).
    GLTF_REFERENCE = Error, "validation.md §6", "UNRESOLVED_REFERENCE", "";
    /// The node hierarchy is not a forest: a node has two parents, or is its own
    /// ancestor, or a scene lists a node that is not a root.
    GLTF_NODE_HIERARCHY = Error, "validation.md §6", "NODE_PARENT_OVERRIDE, NODE_LOOP, SCENE_NON_ROOT_NODE", "";
    /// A byteStride is not a multiple of 4 in 4…252, or is smaller than an element of an
    /// accessor that uses the view, or not a multiple of its component size, or longer
    /// than its view, or on a view of indices or sparse data, or missing from a view two
    /// vertex attribute accessors read.
    GLTF_BYTE_STRIDE = Error, "validation.md §6", "VALUE_NOT_IN_RANGE, VALUE_MULTIPLE_OF, BUFFER_VIEW_INVALID_BYTE_STRIDE, BUFFER_VIEW_TOO_BIG_BYTE_STRIDE, ACCESSOR_SMALL_BYTESTRIDE, MESH_PRIMITIVE_ACCESSOR_WITHOUT_BYTESTRIDE", "";
    /// A buffer view does not lie inside its buffer: byteOffset + byteLength is past the
    /// buffer's byteLength.
    GLTF_BUFFER_VIEW_RANGE = Error, "validation.md §6, security.md [L3]", "BUFFER_VIEW_TOO_LONG", "give the view a range inside its buffer; every command refuses the file until then";
    /// The accessors declare more elements for dash to read than the document's size
    /// allows (the element budget: 2^20 + 4 per byte of input).
    GLTF_ACCESSOR_BUDGET = Error, "security.md [L2]", "", "give the accessors buffer views that hold their data, or smaller counts";
    /// A glTF array that must have at least one element is empty.
    GLTF_EMPTY_ARRAY = Error, "validation.md §6", "EMPTY_ENTITY, ARRAY_LENGTH_OUT_OF_RANGE", "leave the member out instead of writing []";
    /// A member the glTF schema requires is missing (an accessor's `count`, a buffer's
    /// `byteLength`, the root's `asset`, …).
    GLTF_REQUIRED = Error, "validation.md §6", "UNDEFINED_PROPERTY", "";
    /// An accessor dash reads (influences, inverse bind matrices, POSITION, animation
    /// samplers) cannot be read (missing buffer view, out of range).
    GLTF_ACCESSOR_DATA = Error, "validation.md §6", "ACCESSOR_TOO_LONG, BUFFER_VIEW_TOO_LONG, UNRESOLVED_REFERENCE", "";
    /// An accessor's elements run past the end of its buffer view.
    GLTF_ACCESSOR_TOO_LONG = Error, "validation.md §6", "ACCESSOR_TOO_LONG", "give the accessor a count and byteOffset that fit its buffer view";
    /// A WEIGHTS or inverse bind matrix accessor has neither bufferView nor sparse data:
    /// every value is zero (vertices bound to no bone, matrices that collapse them).
    GLTF_ACCESSOR_NO_DATA = Warning, "validation.md §6", "", "give the accessor its data";
    /// An influence accessor is not 4-byte aligned.
    GLTF_ACCESSOR_ALIGNMENT = Error, "validation.md §6", "MESH_PRIMITIVE_ACCESSOR_UNALIGNED", "";
    /// A vertex attribute accessor other than JOINTS/WEIGHTS starts off a 4-byte boundary
    /// of its buffer view (`dashvertex fix` rewrites influence accessors only).
    GLTF_ATTRIBUTE_ALIGNMENT = Error, "validation.md §6", "MESH_PRIMITIVE_ACCESSOR_UNALIGNED", "move the accessor's data to a byteOffset that is a multiple of 4";
    /// JOINTS_n is not VEC4 of unsigned byte or unsigned short.
    GLTF_JOINTS_FORMAT = Error, "validation.md §6", "MESH_PRIMITIVE_ATTRIBUTES_ACCESSOR_INVALID_FORMAT", "JOINTS_n must be VEC4 UNSIGNED_BYTE or UNSIGNED_SHORT";
    /// WEIGHTS_n is not VEC4 float, normalized unsigned byte or normalized unsigned short.
    GLTF_WEIGHTS_FORMAT = Error, "validation.md §6", "MESH_PRIMITIVE_ATTRIBUTES_ACCESSOR_INVALID_FORMAT, ACCESSOR_NORMALIZED_INVALID", "WEIGHTS_n must be VEC4 FLOAT, or normalized UNSIGNED_BYTE / UNSIGNED_SHORT";
    /// JOINTS_n and WEIGHTS_n sets are not paired.
    GLTF_SET_MISMATCH = Error, "validation.md §6", "MESH_PRIMITIVE_JOINTS_WEIGHTS_MISMATCH", "";
    /// JOINTS_n / WEIGHTS_n do not start at 0, have gaps, or are malformed.
    GLTF_SET_CONTINUITY = Error, "validation.md §6", "MESH_PRIMITIVE_INDEXED_SEMANTIC_CONTINUITY, MESH_PRIMITIVE_INVALID_ATTRIBUTE", "";
    /// The attribute accessors of a primitive have different counts.
    GLTF_COUNT_MISMATCH = Error, "validation.md §6", "MESH_PRIMITIVE_UNEQUAL_ACCESSOR_COUNT", "";
    /// A buffer view holds vertex attributes and indices at once, or data of the other
    /// kind than its `target` declares.
    GLTF_BUFFER_VIEW_TARGET = Error, "validation.md §6", "BUFFER_VIEW_TARGET_OVERRIDE", "give vertex data and indices their own buffer views, each with its target";
    /// A node's matrix is not a translation, rotation and scale: its fourth row is not
    /// (0, 0, 0, 1), or its columns are not orthogonal (a shear).
    GLTF_NODE_MATRIX = Error, "validation.md §6", "NODE_MATRIX_NON_TRS", "write the transform as a matrix without shear or projection, or as translation/rotation/scale";
    /// A primitive's material samples a texture through a TEXCOORD_n set the primitive
    /// does not have.
    GLTF_TEXCOORD_MISSING = Error, "validation.md §6", "MESH_PRIMITIVE_TOO_FEW_TEXCOORDS", "give the primitive that TEXCOORD_n, or bind the texture to a set it has";
    /// A FLOAT COLOR_n accessor holds a component below 0 or above 1.
    GLTF_COLOR_RANGE = Error, "validation.md §6", "ACCESSOR_NON_CLAMPED", "clamp the colors to 0…1";
    /// A FLOAT NORMAL, or the xyz of a FLOAT TANGENT, is not of unit length.
    GLTF_ATTRIBUTE_NON_UNIT = Error, "validation.md §6", "ACCESSOR_VECTOR3_NON_UNIT", "normalize the vectors (Blender: recalculate normals before export)";
    /// A FLOAT TANGENT's w (the bitangent's handedness) is not 1 or -1.
    GLTF_TANGENT_SIGN = Error, "validation.md §6", "ACCESSOR_INVALID_SIGN", "write w as 1 or -1";
    /// A node's rotation is not a unit quaternion.
    GLTF_NODE_ROTATION = Error, "validation.md §6", "ROTATION_NON_UNIT", "normalize the quaternion";
    /// A node has a matrix and also translation, rotation or scale.
    GLTF_NODE_MATRIX_TRS = Error, "validation.md §6", "NODE_MATRIX_TRS", "keep either the matrix or translation/rotation/scale";
    /// An accessor's declared min or max is not the least or greatest value of a
    /// component.
    GLTF_ACCESSOR_BOUNDS = Error, "validation.md §6", "ACCESSOR_MIN_MISMATCH, ACCESSOR_MAX_MISMATCH, ACCESSOR_ELEMENT_OUT_OF_MIN_BOUND, ACCESSOR_ELEMENT_OUT_OF_MAX_BOUND", "write the actual least and greatest values";
    /// An animation sampler's accessors do not have the form animation data need.
    GLTF_ANIMATION_SAMPLER = Error, "validation.md §6", "ANIMATION_SAMPLER_INPUT_ACCESSOR_INVALID_FORMAT, ANIMATION_SAMPLER_INPUT_ACCESSOR_WITHOUT_BOUNDS, ANIMATION_SAMPLER_INPUT_ACCESSOR_TOO_FEW_ELEMENTS, ANIMATION_SAMPLER_ACCESSOR_WITH_BYTESTRIDE, ANIMATION_SAMPLER_OUTPUT_ACCESSOR_INVALID_FORMAT, ANIMATION_SAMPLER_OUTPUT_ACCESSOR_INVALID_COUNT", "";
    /// An animation channel targets what it cannot animate, or what another channel does.
    GLTF_ANIMATION_TARGET = Error, "validation.md §6", "ANIMATION_CHANNEL_TARGET_NODE_MATRIX, ANIMATION_CHANNEL_TARGET_NODE_WEIGHTS_NO_MORPHS, ANIMATION_DUPLICATE_TARGETS", "";
    /// An animation keyframe time is negative or not after the one before.
    GLTF_ANIMATION_INPUT = Error, "validation.md §6", "ACCESSOR_ANIMATION_INPUT_NEGATIVE, ACCESSOR_ANIMATION_INPUT_NON_INCREASING", "keyframe times start at 0 or later and strictly increase";
    /// An animated rotation keyframe is not a unit quaternion.
    GLTF_ANIMATION_ROTATION = Error, "validation.md §6", "ACCESSOR_ANIMATION_SAMPLER_OUTPUT_NON_NORMALIZED_QUATERNION", "normalize the quaternions";
    /// A sparse accessor substitutes more elements than the accessor has.
    GLTF_ACCESSOR_SPARSE = Error, "validation.md §6", "ACCESSOR_SPARSE_COUNT_OUT_OF_RANGE", "";
    /// A primitive's indices have the wrong format or a byteStride, or an index is the
    /// primitive-restart value or not below the vertex count.
    GLTF_INDICES = Error, "validation.md §6", "MESH_PRIMITIVE_INDICES_ACCESSOR_INVALID_FORMAT, MESH_PRIMITIVE_INDICES_ACCESSOR_WITH_BYTESTRIDE, ACCESSOR_INDEX_OOB, ACCESSOR_INDEX_PRIMITIVE_RESTART", "";
    /// A POSITION accessor is not VEC3 FLOAT, or has no min and max.
    GLTF_POSITION = Error, "validation.md §6", "MESH_PRIMITIVE_ATTRIBUTES_ACCESSOR_INVALID_FORMAT, MESH_PRIMITIVE_POSITION_ACCESSOR_WITHOUT_BOUNDS", "POSITION is VEC3 FLOAT with min and max";
    /// An accessor's `normalized` or byte offsets do not fit its component type.
    GLTF_ACCESSOR_FORMAT = Error, "validation.md §6", "ACCESSOR_NORMALIZED_INVALID, ACCESSOR_OFFSET_ALIGNMENT, ACCESSOR_TOTAL_OFFSET_ALIGNMENT, ACCESSOR_MATRIX_ALIGNMENT", "";
    /// A member that needs another is there without it (a byteOffset without bufferView,
    /// node weights without a mesh, extensionsRequired without extensionsUsed).
    GLTF_DEPENDENCY = Error, "validation.md §6", "UNSATISFIED_DEPENDENCY", "";
    /// An extension is listed twice, required but not used, or present but not declared.
    GLTF_EXTENSIONS = Error, "validation.md §6", "DUPLICATE_ELEMENTS, UNUSED_EXTENSION_REQUIRED, UNDECLARED_EXTENSION", "declare every extension the file uses in extensionsUsed, once";
    /// A morph target has no base attribute or another count, or the target and weight
    /// counts of a mesh and its nodes disagree.
    GLTF_MORPH = Error, "validation.md §6", "MESH_PRIMITIVE_MORPH_TARGET_NO_BASE_ACCESSOR, MESH_PRIMITIVE_MORPH_TARGET_INVALID_ATTRIBUTE_COUNT, MESH_PRIMITIVES_UNEQUAL_TARGETS_COUNT, MESH_INVALID_WEIGHTS_COUNT, NODE_WEIGHTS_INVALID", "";
    /// An attribute name is not a glTF one, TEXCOORD/COLOR sets have gaps, or an
    /// attribute is UNSIGNED_INT.
    GLTF_ATTRIBUTE = Error, "validation.md §6", "MESH_PRIMITIVE_INVALID_ATTRIBUTE, MESH_PRIMITIVE_INDEXED_SEMANTIC_CONTINUITY, MESH_PRIMITIVE_ATTRIBUTES_ACCESSOR_UNSIGNED_INT", "application-specific attribute names start with _";
    /// An attribute's accessor (NORMAL, TANGENT, TEXCOORD_n, COLOR_n, or a morph target's)
    /// has a type or component type glTF does not allow for its semantic.
    GLTF_ATTRIBUTE_FORMAT = Error, "validation.md §6", "MESH_PRIMITIVE_ATTRIBUTES_ACCESSOR_INVALID_FORMAT", "write the attribute in one of the formats glTF lists for it (a morph target's TANGENT is VEC3)";
    /// A number is outside the range the glTF schema gives it (a byteLength of 0).
    GLTF_VALUE_RANGE = Error, "validation.md §6", "VALUE_NOT_IN_RANGE", "";
    /// Data dash cannot read: a required extension it does not understand, a Draco
    /// primitive's data, a meshopt view whose fallback buffer holds none.
    GLTF_EXTENSION_UNSUPPORTED = Error, "validation.md §6, security.md [R3]", "", "decode the file first, or write it without the extension";
    /// A member the glTF schema limits to a list of values holds another (a sampler's
    /// `interpolation`), which a viewer cannot evaluate.
    GLTF_VALUE_NOT_IN_LIST = Error, "validation.md §6", "VALUE_NOT_IN_LIST", "a sampler's interpolation is LINEAR, STEP or CUBICSPLINE";
    /// A node instantiates a mesh that has joints, without a skin.
    GLTF_MESH_UNSKINNED = Warning, "validation.md §6", "NODE_SKINNED_MESH_WITHOUT_SKIN", "give the node a skin, or drop the JOINTS/WEIGHTS attributes";
    /// A node with a skinned mesh has a parent: the parent's transforms do not move it.
    GLTF_SKINNED_MESH_NON_ROOT = Warning, "validation.md §6", "NODE_SKINNED_MESH_NON_ROOT", "make the skinned mesh's node a scene root; the joints place the mesh";
    /// A node with a skinned mesh has a transform of its own, which does not move it.
    GLTF_SKINNED_MESH_LOCAL_TRANSFORMS = Warning, "validation.md §6", "NODE_SKINNED_MESH_LOCAL_TRANSFORMS", "leave the skinned mesh's node without translation, rotation, scale or matrix; the joints place the mesh";
    /// A node has a skin but its mesh has no joints.
    GLTF_SKIN_WITHOUT_JOINTS = Error, "validation.md §6", "NODE_SKIN_WITH_NON_SKINNED_MESH", "";
    /// A node has a skin but no mesh.
    GLTF_SKIN_WITHOUT_MESH = Error, "validation.md §6", "UNSATISFIED_DEPENDENCY", "";
    /// skin.joints is empty, repeats a node, or names a missing node.
    GLTF_SKIN_JOINTS = Error, "validation.md §6", "EMPTY_ENTITY, DUPLICATE_ELEMENTS, UNRESOLVED_REFERENCE", "";
    /// The joints of a skin have no common root.
    GLTF_SKIN_ROOT = Error, "validation.md §6", "SKIN_NO_COMMON_ROOT", "";
    /// skin.skeleton is not a common root of the joints.
    GLTF_SKIN_SKELETON = Error, "validation.md §6", "SKIN_SKELETON_INVALID", "";
    /// A scene holds a node with a skin but not the root of the skin's joints.
    GLTF_SKIN_SCENE = Error, "validation.md §6", "NODE_SKIN_NO_SCENE", "put the joints' root node in every scene that shows the skinned node";
    /// An accessor, or its buffer view, is a skin's inverse bind matrices and vertex data
    /// at once.
    GLTF_ACCESSOR_USAGE = Error, "validation.md §6", "ACCESSOR_USAGE_OVERRIDE, BUFFER_VIEW_TARGET_OVERRIDE", "give the inverse bind matrices their own accessor and buffer view";
    /// The inverse bind matrices are not MAT4 float, or their view has a byteStride.
    GLTF_IBM_FORMAT = Error, "validation.md §6", "SKIN_IBM_INVALID_FORMAT", "";
    /// The inverse bind matrices lie in a buffer view with a `byteStride`.
    GLTF_IBM_STRIDE = Error, "validation.md §6", "SKIN_IBM_ACCESSOR_WITH_BYTESTRIDE", "pack the matrices tightly (fixing the file does)";
    /// Fewer inverse bind matrices than joints.
    GLTF_IBM_COUNT = Error, "validation.md §6", "INVALID_IBM_ACCESSOR_COUNT", "";
    /// An inverse bind matrix's fourth row is not exactly (0, 0, 0, 1).
    GLTF_IBM_ROW = Error, "validation.md §6", "ACCESSOR_INVALID_IBM", "";
    /// An inverse bind matrix has a NaN or infinite element.
    GLTF_IBM_NON_FINITE = Error, "validation.md §6", "ACCESSOR_INVALID_FLOAT", "";
    /// An animation sampler's input or output accessor (FLOAT) holds NaN or an infinity.
    GLTF_ANIMATION_NON_FINITE = Error, "validation.md §6", "ACCESSOR_INVALID_FLOAT", "write finite keyframe times and values; dash measures no loss on such an animation";
    /// A FLOAT accessor no other rule reads (NORMAL, TEXCOORD_n, an unskinned POSITION,
    /// one nothing uses) holds NaN or an infinity.
    GLTF_ACCESSOR_NON_FINITE = Error, "validation.md §6", "ACCESSOR_INVALID_FLOAT", "write finite values";
    /// An inverse bind matrix is singular (cannot be inverted).
    GLTF_IBM_SINGULAR = Warning, "validation.md §6", "", "a singular matrix collapses the joint's vertices";
    /// ufbx cannot read the FBX file: damaged, truncated or of an unsupported version.
    FBX_READ = Error, "fbx.md §1", "", "export the file again from the tool that made it";
    /// The FBX file has no skin deformer: there is nothing to check.
    FBX_NO_SKIN = Info, "fbx.md §3", "", "";
    /// An FBX cluster gives a control point a negative, NaN or infinite weight.
    FBX_WEIGHT_INVALID = Error, "fbx.md §3", "", "weights are finite and at least 0; paint the vertex again";
    /// An FBX cluster lists a control point with weight 0.
    FBX_WEIGHT_ZERO = Warning, "fbx.md §3", "", "some importers count a listed 0 as an influence; clean the vertex groups (Blender: Clean) before export";
    /// A control point's FBX weights do not sum to 1 (the glTF rule).
    FBX_WEIGHT_SUM = Error, "fbx.md §3", "", "normalize the weights before export (Blender: Normalize All), or let dash's convert or reduce normalize them";
    /// A control point has more FBX influences than glTF's first set or the target keeps.
    FBX_INFLUENCES = Warning, "fbx.md §3", "", "reducing the file keeps the ones that matter";
    /// A control point of a skinned FBX mesh that no cluster weights.
    FBX_UNWEIGHTED = Warning, "fbx.md §3", "", "weight it to a bone, or it stays where the mesh is while the skeleton moves";
    /// Two clusters of one FBX skin deformer link to the same bone.
    FBX_CLUSTER_DUPLICATE = Warning, "fbx.md §3", "", "merge the two vertex groups of the bone before export";
    /// An FBX cluster links to no node, or to a node that is not a bone (a limb node).
    FBX_CLUSTER_NOT_BONE = Warning, "fbx.md §3", "", "bind the mesh to the skeleton's bones";
    /// An FBX cluster's bone has no bind pose entry, or one that disagrees with the cluster.
    FBX_BIND_POSE = Warning, "fbx.md §3", "", "export with the bind pose (FBX exporters' Bind Pose option)";
    /// An FBX mesh has more than one skin deformer.
    FBX_SKIN_SEVERAL = Warning, "fbx.md §3", "", "merge the skins into one before export";
    /// An FBX skin deformer uses rigid, dual-quaternion or blended skinning.
    FBX_SKINNING_MODE = Warning, "fbx.md §3", "", "switch the skin to linear (classic) skinning before export";
}

impl serde::Serialize for Code {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl schemars::JsonSchema for Code {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Code".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let names: Vec<&str> = Code::ALL.iter().map(|c| c.as_str()).collect();
        schemars::json_schema!({
            "description": "A stable diagnostic code (spec/validation.md).",
            "type": "string",
            "enum": names
        })
    }
}

impl std::fmt::Display for Severity {
    /// `info`, `warning` or `error` ([`Severity::as_str`]).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Severity {
    type Err = UnknownName;

    /// `info`, `warning` or `error`.
    fn from_str(s: &str) -> Result<Severity, UnknownName> {
        match s {
            "info" => Ok(Severity::Info),
            "warning" => Ok(Severity::Warning),
            "error" => Ok(Severity::Error),
            _ => Err(UnknownName::new("severity", s)),
        }
    }
}

impl std::fmt::Display for Code {
    /// The code's name, `WEIGHT_SUM` ([`Code::as_str`]).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Code {
    type Err = UnknownName;

    /// A code by its name ([`Code::parse`]).
    fn from_str(s: &str) -> Result<Code, UnknownName> {
        Code::parse(s).ok_or_else(|| UnknownName::new("diagnostic code", s))
    }
}

/// A name that names no value of its kind (a code, a severity, a profile, a level).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownName {
    kind: &'static str,
    name: String,
}

impl UnknownName {
    pub(crate) fn new(kind: &'static str, name: &str) -> UnknownName {
        UnknownName {
            kind,
            name: dashvertex_core::text::short(name),
        }
    }
}

impl std::fmt::Display for UnknownName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "unknown {} {}", self.kind, self.name)
    }
}

impl std::error::Error for UnknownName {}
