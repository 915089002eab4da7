//! The JavaScript API (wasm-bindgen): a thin layer over the plain Rust functions of the
//! other modules, turning their results into typed arrays and their [`Failure`]s into
//! JavaScript `Error`s with `code`, `message` and `location` properties.

use js_sys::{Error, Float32Array, Int32Array, JSON, Reflect, Uint16Array, Uint32Array};
use wasm_bindgen::prelude::*;

use crate::failure::Failure;
use crate::model::{self, Decoded, Joints};

/// A `Failure` as a JavaScript `Error` named `DashError`.
fn thrown(f: Failure) -> JsValue {
    let e = Error::new(&f.message);
    e.set_name("DashError");
    let location = JSON::parse(&f.location_json()).unwrap_or(JsValue::NULL);
    // Setting a property of a fresh Error object cannot fail.
    let _ = Reflect::set(&e, &"code".into(), &f.code.as_str().into());
    let _ = Reflect::set(&e, &"location".into(), &location);
    e.into()
}

/// An options object as JSON text (`None` for `undefined` or `null`).
fn options_text(options: &JsValue) -> Result<Option<String>, JsValue> {
    if options.is_undefined() || options.is_null() {
        return Ok(None);
    }
    let text = JSON::stringify(options)
        .map_err(|_| thrown(Failure::options("options cannot be written as JSON")))?;
    Ok(text.as_string())
}

fn no_set(set: usize) -> JsValue {
    thrown(Failure::options(format!("no influence set {set}")))
}

/// A decoded DashVertex file.
#[wasm_bindgen]
#[derive(Clone)]
pub struct Model {
    inner: Decoded,
}

#[wasm_bindgen]
impl Model {
    /// The format read: `"json"`, `"dmx"` or `"raw"`.
    #[wasm_bindgen(getter)]
    pub fn format(&self) -> String {
        self.inner.format().as_str().to_owned()
    }

    /// Number of vertices.
    #[wasm_bindgen(getter, js_name = vertexCount)]
    pub fn vertex_count(&self) -> usize {
        self.inner.vertex_count()
    }

    /// Influence sets per vertex (at least 1; more than 1 means more than 4 influences).
    #[wasm_bindgen(getter, js_name = setCount)]
    pub fn set_count(&self) -> usize {
        self.inner.set_count()
    }

    /// Whether the mesh is skinned.
    #[wasm_bindgen(getter)]
    pub fn skinned(&self) -> bool {
        self.inner.skinned()
    }

    /// Bones in the skeleton (0 without one).
    #[wasm_bindgen(getter, js_name = boneCount)]
    pub fn bone_count(&self) -> usize {
        self.inner.bone_count()
    }

    /// Whether the file has a skeleton.
    #[wasm_bindgen(getter, js_name = hasSkeleton)]
    pub fn has_skeleton(&self) -> bool {
        self.inner.has_skeleton()
    }

    /// Positions, `x y z` per vertex.
    pub fn positions(&self) -> Float32Array {
        Float32Array::from(self.inner.positions().as_slice())
    }

    /// Bone indices of influence set `set`, four per vertex: a `Uint16Array` when every
    /// index fits 16 bits, else a `Uint32Array` (the same type for every set).
    #[wasm_bindgen(js_name = skinIndex)]
    pub fn skin_index(&self, set: usize) -> Result<JsValue, JsValue> {
        match self.inner.joints(set) {
            Some(Joints::U16(v)) => Ok(Uint16Array::from(v.as_slice()).into()),
            Some(Joints::U32(v)) => Ok(Uint32Array::from(v.as_slice()).into()),
            None => Err(no_set(set)),
        }
    }

    /// Weights of influence set `set`, four per vertex.
    #[wasm_bindgen(js_name = skinWeight)]
    pub fn skin_weight(&self, set: usize) -> Result<Float32Array, JsValue> {
        self.inner
            .weights(set)
            .map(|v| Float32Array::from(v.as_slice()))
            .ok_or_else(|| no_set(set))
    }

    /// Bone names, in bone order.
    #[wasm_bindgen(js_name = boneNames)]
    pub fn bone_names(&self) -> Vec<String> {
        self.inner.skeleton().names
    }

    /// Parent index per bone, `-1` for a root.
    #[wasm_bindgen(js_name = boneParents)]
    pub fn bone_parents(&self) -> Int32Array {
        Int32Array::from(self.inner.skeleton().parents.as_slice())
    }

    /// Local bind translations, `x y z` per bone.
    #[wasm_bindgen(js_name = bonePositions)]
    pub fn bone_positions(&self) -> Float32Array {
        Float32Array::from(self.inner.skeleton().positions.as_slice())
    }

    /// Local bind rotations (quaternions), `x y z w` per bone.
    #[wasm_bindgen(js_name = boneRotations)]
    pub fn bone_rotations(&self) -> Float32Array {
        Float32Array::from(self.inner.skeleton().rotations.as_slice())
    }

    /// Local bind scales, `x y z` per bone.
    #[wasm_bindgen(js_name = boneScales)]
    pub fn bone_scales(&self) -> Float32Array {
        Float32Array::from(self.inner.skeleton().scales.as_slice())
    }

    /// Reduces to K influences per vertex with the reducer's options (`maxInfluences`,
    /// `normalize`, `quantize`, `minWeight`, `empty`), keeping the file's bone indices.
    #[cfg(feature = "reduce")]
    pub fn reduce(&self, options: JsValue) -> Result<Reduction, JsValue> {
        let text = options_text(&options)?;
        let opts = crate::reduction::ReduceOptions::from_json(text.as_deref()).map_err(thrown)?;
        let r = crate::reduction::reduce(&self.inner, &opts).map_err(thrown)?;
        let report = serde_json::to_string(&r.report)
            .map_err(|e| thrown(Failure::new("INTERNAL", e.to_string())))?;
        Ok(Reduction {
            model: Model { inner: r.decoded },
            report,
        })
    }

    /// The file written as `"dmx"`, `"json"` or `"raw"`, losslessly (or an error naming
    /// what the format cannot hold).
    #[cfg(feature = "encode")]
    pub fn encode(&self, format: &str) -> Result<Vec<u8>, JsValue> {
        crate::encode::encode(&self.inner, format).map_err(thrown)
    }
}

/// A reduced model and the reducer's report.
#[cfg(feature = "reduce")]
#[wasm_bindgen]
pub struct Reduction {
    model: Model,
    report: String,
}

#[cfg(feature = "reduce")]
#[wasm_bindgen]
impl Reduction {
    /// The reduced model.
    #[wasm_bindgen(getter)]
    pub fn model(&self) -> Model {
        self.model.clone()
    }

    /// The report: counts of dropped, merged and rounded influences, the heaviest
    /// dropped influence and the weight dropped (`droppedWeight`).
    #[wasm_bindgen(getter)]
    pub fn report(&self) -> JsValue {
        JSON::parse(&self.report).unwrap_or(JsValue::NULL)
    }
}

/// Decodes DashVertex JSON, a DMX container or raw records. `name` (optional) hints at
/// the format by its extension, as a file name does for `dashvertex`; `format` (`"json"`,
/// `"dmx"`, `"raw"`) forces one.
#[wasm_bindgen]
pub fn decode(
    bytes: &[u8],
    name: Option<String>,
    format: Option<String>,
) -> Result<Model, JsValue> {
    let forced = format
        .as_deref()
        .map(model::parse_format)
        .transpose()
        .map_err(thrown)?;
    model::decode(name.as_deref().unwrap_or(""), bytes, forced)
        .map(|inner| Model { inner })
        .map_err(thrown)
}

/// Validates `bytes` and returns the JSON report text `dash-validate --format json`
/// prints (`schemas/validation-report.schema.json`). `options`: `profile`, `bones`,
/// `denyWarnings`, `maxDiagnostics`, `format`, `allow`, `warn`, `deny`.
#[wasm_bindgen]
pub fn validate(bytes: &[u8], name: Option<String>, options: JsValue) -> Result<String, JsValue> {
    let text = options_text(&options)?;
    let opts = crate::validation::ValidateOptions::from_json(text.as_deref()).map_err(thrown)?;
    crate::validation::report_json(name.as_deref().unwrap_or("<bytes>"), bytes, &opts)
        .map_err(thrown)
}

/// The version of dash this module was built from.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_owned()
}
