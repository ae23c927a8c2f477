//! Storage errors that keep the DOMException name (`QuotaExceededError`, `VersionError`, …).

use wasm_bindgen::{JsCast, JsValue};

use crate::core::text::concat;

/// A failed storage operation. `name` is the DOMException name when the browser gave one, so a
/// host can branch on `err.name === "QuotaExceededError"` exactly as with raw IndexedDB.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreError {
    /// DOMException name, or our own (`NotSupportedError` when IndexedDB is missing).
    pub name: String,
    /// Human-readable message.
    pub message: String,
}

impl StoreError {
    /// An error with an explicit name.
    pub fn new(name: &str, message: impl Into<String>) -> Self {
        Self {
            name: name.to_owned(),
            message: message.into(),
        }
    }

    /// Converts whatever JS threw or reported (DOMException, Error, anything) into a `StoreError`,
    /// prefixing the message with what we were doing.
    pub fn from_js(context: &str, value: &JsValue) -> Self {
        if let Some(dom) = value.dyn_ref::<web_sys::DomException>() {
            return Self::new(&dom.name(), concat(&[context, ": ", &dom.message()]));
        }
        if let Some(err) = value.dyn_ref::<js_sys::Error>() {
            return Self::new(
                &String::from(err.name()),
                concat(&[context, ": ", &String::from(err.message())]),
            );
        }
        // Duck-typed DOMException-like objects (fake-indexeddb's own class, other realms).
        let get = |k: &str| {
            js_sys::Reflect::get(value, &JsValue::from_str(k))
                .ok()
                .and_then(|v| v.as_string())
        };
        match (get("name"), get("message")) {
            (Some(name), message) => Self::new(
                &name,
                concat(&[context, ": ", &message.unwrap_or_default()]),
            ),
            _ => {
                let detail = value
                    .as_string()
                    .unwrap_or_else(|| "a value that is not an Error was thrown".to_owned());
                Self::new("UnknownError", concat(&[context, ": ", &detail]))
            }
        }
    }
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name)?;
        f.write_str(": ")?;
        f.write_str(&self.message)
    }
}

impl std::error::Error for StoreError {}
