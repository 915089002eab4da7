//! The JavaScript API (wasm-bindgen): an [`Inspector`] collects the dropped files, opens
//! them, and hands out the report, the scene description and its arrays.

use std::cell::{Ref, RefCell};

use js_sys::{Error, Float32Array, JSON, Uint32Array};
use wasm_bindgen::prelude::*;

use crate::files::Dropped;
use crate::scene::{self, Scene};

fn error(message: impl AsRef<str>) -> JsValue {
    let e = Error::new(message.as_ref());
    e.set_name("DashError");
    e.into()
}

/// Files dropped together, opened as one glTF document.
#[wasm_bindgen]
#[derive(Default)]
pub struct Inspector {
    dropped: Dropped,
    report: Option<String>,
    scene: Option<Scene>,
    opened: Option<crate::reduced::Opened>,
    load_error: Option<String>,
    /// The last fitted reduction, its K, bytes and scene read back: the preview of every
    /// primitive and the download share one run per K.
    fitted: RefCell<Option<FittedRun>>,
}

/// A fitted reduction's K, GLB bytes and scene read back.
type FittedRun = (usize, Vec<u8>, Scene);

#[wasm_bindgen]
impl Inspector {
    /// An inspector with no files.
    #[wasm_bindgen(constructor)]
    pub fn new() -> Inspector {
        Inspector::default()
    }

    /// Adds a file (`name` as on disk: the document's `uri`s name its buffers so).
    pub fn add(&mut self, name: String, bytes: Vec<u8>) {
        self.dropped.files.push((name, bytes));
        self.report = None;
        self.scene = None;
        self.opened = None;
        self.load_error = None;
        self.fitted = RefCell::new(None);
    }

    /// Validates and decodes the files. Returns whether the document could be decoded
    /// for drawing (the report is there either way).
    pub fn open(&mut self) -> bool {
        let opts = dashvertex_validate::Options::default();
        self.report = self.dropped.report_json(&opts);
        match self.dropped.load() {
            Some(Ok(gltf)) => {
                self.scene = Some(scene::decode(&gltf));
                self.opened = Some(crate::reduced::Opened::new(gltf));
                true
            }
            Some(Err(e)) => {
                self.load_error = Some(e.to_string());
                false
            }
            None => {
                self.load_error = Some("no file given".into());
                false
            }
        }
    }

    /// The name of the document among the files.
    #[wasm_bindgen(getter, js_name = mainFile)]
    pub fn main_file(&self) -> Option<String> {
        self.dropped
            .main()
            .and_then(|i| self.dropped.files.get(i))
            .map(|(n, _)| n.clone())
    }

    /// The report text of `dash-validate --format json` (without its final newline).
    #[wasm_bindgen(getter, js_name = reportJson)]
    pub fn report_json(&self) -> Option<String> {
        self.report.clone()
    }

    /// Why the document could not be decoded for drawing.
    #[wasm_bindgen(getter, js_name = loadError)]
    pub fn load_error(&self) -> Option<String> {
        self.load_error.clone()
    }

    /// The scene: nodes, roots, skins, primitives, animations and problems (a plain
    /// object; the arrays come from the methods below).
    pub fn scene(&self) -> Result<JsValue, JsValue> {
        let s = self
            .scene
            .as_ref()
            .ok_or_else(|| error("nothing decoded"))?;
        let text = serde_json::to_string(s).map_err(|e| error(e.to_string()))?;
        JSON::parse(&text)
    }

    fn primitive(&self, p: usize) -> Result<&scene::Primitive, JsValue> {
        self.scene
            .as_ref()
            .and_then(|s| s.data.get(p))
            .ok_or_else(|| error(format!("no primitive {p}")))
    }

    /// Positions of primitive `p`, `x y z` per vertex.
    pub fn positions(&self, p: usize) -> Result<Float32Array, JsValue> {
        Ok(Float32Array::from(self.primitive(p)?.positions.as_slice()))
    }

    /// Indices of primitive `p` (`undefined` when it has none).
    pub fn indices(&self, p: usize) -> Result<Option<Uint32Array>, JsValue> {
        Ok(self.primitive(p)?.indices.as_deref().map(Uint32Array::from))
    }

    /// Joint indices of set `s` of primitive `p`, four per vertex.
    pub fn joints(&self, p: usize, s: usize) -> Result<Uint32Array, JsValue> {
        let set = self
            .primitive(p)?
            .sets
            .get(s)
            .ok_or_else(|| error(format!("no set {s}")))?;
        Ok(Uint32Array::from(set.joints.as_slice()))
    }

    /// Weights of set `s` of primitive `p`, four per vertex.
    pub fn weights(&self, p: usize, s: usize) -> Result<Float32Array, JsValue> {
        let set = self
            .primitive(p)?
            .sets
            .get(s)
            .ok_or_else(|| error(format!("no set {s}")))?;
        Ok(Float32Array::from(set.weights.as_slice()))
    }

    /// Inverse bind matrices of skin `s`, 16 per joint, column-major.
    #[wasm_bindgen(js_name = inverseBindMatrices)]
    pub fn inverse_bind_matrices(&self, s: usize) -> Result<Float32Array, JsValue> {
        let skin = self
            .scene
            .as_ref()
            .and_then(|x| x.skins.get(s))
            .ok_or_else(|| error(format!("no skin {s}")))?;
        Ok(Float32Array::from(skin.inverse_bind.as_slice()))
    }

    fn channel(&self, a: usize, c: usize) -> Result<&scene::Channel, JsValue> {
        self.scene
            .as_ref()
            .and_then(|x| x.animations.get(a))
            .and_then(|x| x.channels.get(c))
            .ok_or_else(|| error(format!("no channel {c} in animation {a}")))
    }

    /// Keyframe times of channel `c` of animation `a`.
    pub fn times(&self, a: usize, c: usize) -> Result<Float32Array, JsValue> {
        Ok(Float32Array::from(self.channel(a, c)?.times.as_slice()))
    }

    /// Output values of channel `c` of animation `a`.
    pub fn values(&self, a: usize, c: usize) -> Result<Float32Array, JsValue> {
        Ok(Float32Array::from(self.channel(a, c)?.values.as_slice()))
    }

    /// Per vertex of primitive `p`, the weight the dash reducer drops at `k` influences;
    /// with `fit`, the weight the fitted reduction (`dashvertex reduce --fit`) drops.
    pub fn dropped(&self, p: usize, k: usize, fit: Option<bool>) -> Result<Float32Array, JsValue> {
        let prim = self.primitive(p)?;
        let d = if fit.unwrap_or(false) {
            let run = self.fitted_run(k)?;
            let (_, _, scene) = run.as_ref().ok_or_else(|| error("nothing fitted"))?;
            crate::dropped::dropped_fitted(scene, prim)
        } else {
            crate::dropped::dropped(prim, k)
        };
        Ok(Float32Array::from(
            d.map_err(|e| error(e.to_string()))?.as_slice(),
        ))
    }
}

#[wasm_bindgen]
impl Inspector {
    /// The opened document reduced to `k` influences per vertex: the GLB bytes
    /// `dashvertex reduce IN -o OUT.glb --max-influences K` writes, with `fit` those of
    /// `--fit` (or a `DashError` saying why nothing can be written).
    #[wasm_bindgen(js_name = reduceToGlb)]
    pub fn reduce_to_glb(&self, k: usize, fit: Option<bool>) -> Result<Vec<u8>, JsValue> {
        if fit.unwrap_or(false) {
            let run = self.fitted_run(k)?;
            let (_, bytes, _) = run.as_ref().ok_or_else(|| error("nothing fitted"))?;
            return Ok(bytes.clone());
        }
        let opened = self
            .opened
            .as_ref()
            .ok_or_else(|| error("nothing opened"))?;
        crate::reduced::reduce_to_glb(opened, k, false).map_err(|e| error(e.to_string()))
    }

    /// The fitted reduction to `k` influences, run when the last one was for another K.
    fn fitted_run(&self, k: usize) -> Result<Ref<'_, Option<FittedRun>>, JsValue> {
        if self.fitted.borrow().as_ref().is_none_or(|f| f.0 != k) {
            let opened = self
                .opened
                .as_ref()
                .ok_or_else(|| error("nothing opened"))?;
            let (bytes, scene) =
                crate::dropped::fitted(opened, k).map_err(|e| error(e.to_string()))?;
            *self.fitted.borrow_mut() = Some((k, bytes, scene));
        }
        Ok(self.fitted.borrow())
    }

    /// The opened document repaired: the GLB bytes `dashvertex fix IN -o OUT.glb`
    /// writes with its defaults (or a `DashError`: refused, or nothing to fix).
    #[wasm_bindgen(js_name = fixToGlb)]
    pub fn fix_to_glb(&self) -> Result<Vec<u8>, JsValue> {
        let opened = self
            .opened
            .as_ref()
            .ok_or_else(|| error("nothing opened"))?;
        crate::reduced::fix_to_glb(opened).map_err(|e| error(e.to_string()))
    }
}

/// The version of dash this module was built from.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_owned()
}
