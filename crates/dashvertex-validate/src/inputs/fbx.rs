//! FBX input: the file read by `dashvertex-fbx` (ufbx) within the limits, then its skin
//! checks, each located by FBX object and control point (spec/fbx.md §3).

use dashvertex_fbx::{Check, CheckOptions, FbxError};

use crate::codes::Code;
use crate::diagnostic::Location;
use crate::influences::Profile;
use crate::options::Options;
use crate::sink::Sink;

/// The code of a skin check.
fn code(c: Check) -> Code {
    match c {
        Check::NoSkin => Code::FBX_NO_SKIN,
        Check::WeightInvalid => Code::FBX_WEIGHT_INVALID,
        Check::WeightZero => Code::FBX_WEIGHT_ZERO,
        Check::WeightSum => Code::FBX_WEIGHT_SUM,
        Check::Influences => Code::FBX_INFLUENCES,
        Check::Unweighted => Code::FBX_UNWEIGHTED,
        Check::ClusterDuplicate => Code::FBX_CLUSTER_DUPLICATE,
        Check::ClusterNotBone => Code::FBX_CLUSTER_NOT_BONE,
        Check::BindPose => Code::FBX_BIND_POSE,
        Check::SkinSeveral => Code::FBX_SKIN_SEVERAL,
        // A check added to dashvertex-fbx before it has a code of its own.
        _ => Code::FBX_SKINNING_MODE,
    }
}

/// Validates FBX `bytes`: `FBX_READ` (or `LIMIT_EXCEEDED`) when they cannot be read,
/// else the skin checks, influences counted against `--target`'s number (4 without one).
/// The weights are held to the glTF rule, so the profile is glTF's.
pub fn validate(bytes: &[u8], opts: &Options, sink: &mut Sink) -> Profile {
    let profile = opts.profile.unwrap_or(Profile::Gltf);
    let scene = match dashvertex_fbx::load(bytes, &opts.limits) {
        Ok(s) => s,
        Err(e) => {
            let code = match e {
                FbxError::Limit(_) => Code::LIMIT_EXCEEDED,
                _ => Code::FBX_READ,
            };
            sink.report(code, Location::default, || e.to_string());
            return profile;
        }
    };
    let check = CheckOptions {
        influences: opts.target.and_then(|t| t.influences()).unwrap_or(4),
    };
    dashvertex_fbx::check(&scene, &check, &mut |c, at, message| {
        let object = (c != Check::NoSkin).then(|| at.object());
        sink.report(
            code(c),
            || Location {
                object: object.clone(),
                vertex: at.vertex,
                ..Location::default()
            },
            // A per-vertex message names its geometry; the others start with their object.
            || match (&object, at.vertex) {
                (Some(o), None) => format!("{o}: {}", message()),
                _ => message(),
            },
        );
    });
    profile
}
