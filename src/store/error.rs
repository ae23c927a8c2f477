//! Storage errors that keep the DOMException name (`QuotaExceededError`, `VersionError`, …).

use wasm_bindgen::JsValue;

use crate::core::text::concat;

/// What went wrong, as far as the crate branches on it. Each kind keeps the name JS sees
/// ([`ErrorKind::name`]); every other name is kept as it was given ([`ErrorKind::Other`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ErrorKind {
    /// `QuotaExceededError`: the browser refused a write for lack of space.
    Quota,
    /// `InvalidStateError`: e.g. a transaction started on a connection that has closed.
    InvalidState,
    /// `VersionError`: the database exists at a newer version than the one requested.
    Version,
    /// `NotSupportedError`: IndexedDB or `structuredClone` is missing.
    NotSupported,
    /// `DataCloneError`: the payload cannot be structured-cloned.
    DataClone,
    /// `AbortError`: a transaction aborted.
    Abort,
    /// The platform's cryptographic random source failed. JS sees `NotSupportedError`.
    RandomSource,
    /// Any other name (`TimeoutError`, `NotFoundError`, `UnknownError`, a thrown `TypeError`, …),
    /// kept as given.
    Other(String),
}

impl ErrorKind {
    /// The `name` JS sees: the DOMException name, or the one given to [`ErrorKind::Other`].
    pub fn name(&self) -> &str {
        match self {
            Self::Quota => "QuotaExceededError",
            Self::InvalidState => "InvalidStateError",
            Self::Version => "VersionError",
            Self::NotSupported | Self::RandomSource => "NotSupportedError",
            Self::DataClone => "DataCloneError",
            Self::Abort => "AbortError",
            Self::Other(name) => name,
        }
    }

    /// The kind of a name JS reported (the inverse of [`ErrorKind::name`]; a
    /// `NotSupportedError` from JS is [`ErrorKind::NotSupported`]).
    fn from_name(name: String) -> Self {
        match name.as_str() {
            "QuotaExceededError" => Self::Quota,
            "InvalidStateError" => Self::InvalidState,
            "VersionError" => Self::Version,
            "NotSupportedError" => Self::NotSupported,
            "DataCloneError" => Self::DataClone,
            "AbortError" => Self::Abort,
            _ => Self::Other(name),
        }
    }
}

/// A failed storage operation. Its [`name`](StoreError::name) is the DOMException name when the
/// browser gave one, so a host can branch on `err.name === "QuotaExceededError"` exactly as with
/// raw IndexedDB; Rust branches on [`StoreError::kind`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreError {
    /// What went wrong.
    pub kind: ErrorKind,
    /// Human-readable message.
    pub message: String,
}

impl StoreError {
    /// An error of `kind`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
        }
    }

    /// The name JS sees (`QuotaExceededError`, `NotSupportedError`, …).
    pub fn name(&self) -> &str {
        self.kind.name()
    }

    /// Converts whatever JS threw or reported (DOMException, Error, anything) into a `StoreError`,
    /// prefixing the message with what we were doing.
    ///
    /// `name` and `message` are read as properties, with catching reads: a DOMException and an
    /// `Error` answer them as their getters would (DOMException's prototype chain includes
    /// `Error.prototype`), and so do duck-typed DOMException-like objects (fake-indexeddb's own
    /// class, other realms); a getter that throws reads as absent.
    pub fn from_js(context: &str, value: &JsValue) -> Self {
        let get = |k: &str| {
            js_sys::Reflect::get(value, &JsValue::from_str(k))
                .ok()
                .and_then(|v| v.as_string())
        };
        let (name, message) = match get("name") {
            Some(name) => (name, get("message").unwrap_or_default()),
            None => (
                "UnknownError".to_owned(),
                value
                    .as_string()
                    .unwrap_or_else(|| "a value that is not an Error was thrown".to_owned()),
            ),
        };
        Self::new(
            ErrorKind::from_name(name),
            concat(&[context, ": ", &message]),
        )
    }
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())?;
        f.write_str(": ")?;
        f.write_str(&self.message)
    }
}

impl std::error::Error for StoreError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_other_keeps_its_name() {
        for kind in [
            ErrorKind::Quota,
            ErrorKind::InvalidState,
            ErrorKind::Version,
            ErrorKind::NotSupported,
            ErrorKind::DataClone,
            ErrorKind::Abort,
        ] {
            assert_eq!(ErrorKind::from_name(kind.name().to_owned()), kind);
        }
        // JS sees a failed random source as `NotSupportedError`, as before it had a kind.
        assert_eq!(ErrorKind::RandomSource.name(), "NotSupportedError");
        let other = ErrorKind::from_name("TimeoutError".to_owned());
        assert_eq!(other, ErrorKind::Other("TimeoutError".to_owned()));
        assert_eq!(other.name(), "TimeoutError");
        let err = StoreError::new(ErrorKind::Quota, "writing: full");
        assert_eq!(err.name(), "QuotaExceededError");
        assert_eq!(err.to_string(), "QuotaExceededError: writing: full");
    }
}
