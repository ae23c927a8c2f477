//! Invalidation: marking stale every fresh record whose tool name a predicate accepts, reading
//! only the usage rows and the matching records.

use std::cell::Cell;
use std::rc::Rc;

use js_sys::{Array, Reflect};
use wasm_bindgen::{JsCast, JsValue};

use super::transaction::Touches;
use super::tx::{Handlers, Tx};
use super::IndexedDbStore;
use crate::core::map::Map;
use crate::core::record::{fields, UNKNOWN_SOURCE_TOOL};
use crate::store::js_record::field;
use crate::store::StoreError;

impl IndexedDbStore {
    /// Reads every usage row in one request (small rows: no payload is read), asks `matches`
    /// once per distinct tool name, and reads + rewrites only the matching records — every
    /// request issued from inside this transaction's own success events, so it cannot
    /// auto-commit midway.
    ///
    /// A usage row without a tool name was written into this schema by an older build of this
    /// package (two tabs on different releases during a deploy): its record, which carries the
    /// name, is read and decides, and the row gets the name for next time. Skipping such rows
    /// would leave data a mutation made stale served as fresh.
    ///
    /// [MDN: IDBObjectStore.getAll](https://developer.mozilla.org/docs/Web/API/IDBObjectStore/getAll)
    pub(super) async fn mark_tools_stale(
        &self,
        matches: Rc<dyn Fn(&str) -> bool>,
        cause: &str,
    ) -> Result<u32, StoreError> {
        let cause = JsValue::from_str(cause);
        self.read_write(
            "marking cache entries stale",
            Touches::Flush,
            self.seq.ticket(),
            move |tx, handlers, out| {
                let rows_request = tx.usage.get_all()?;
                let (tx2, handlers2) = (tx.clone(), handlers.clone());
                handlers.on(&rows_request, move |request| {
                    let rows: Array = request
                        .result()
                        .map(JsCast::unchecked_into)
                        .unwrap_or_default();
                    let mut decided: Map<String, bool> = Map::new();
                    for row in rows.iter() {
                        let uri = field(&row, fields::URI);
                        let Some(name) = field(&row, fields::SOURCE_TOOL_NAME).as_string() else {
                            let matches = matches.clone();
                            let unnamed = Some(Unnamed { row, matches });
                            mark_one(&tx2, &handlers2, &uri, cause.clone(), out.clone(), unnamed);
                            continue;
                        };
                        if *decided.get_or_insert_with(name, |name| matches(name)) {
                            mark_one(&tx2, &handlers2, &uri, cause.clone(), out.clone(), None);
                        }
                    }
                });
                Ok(())
            },
        )
        .await
    }
}

/// A usage row without a tool name, and the question to ask of the name its record carries.
struct Unnamed {
    row: JsValue,
    matches: Rc<dyn Fn(&str) -> bool>,
}

/// Reads one record and rewrites it with `staleCause` unless it is already stale. For an
/// `unnamed` usage row, the record's tool name (`"<unknown>"` without one) is first written onto
/// the row, and decides whether the record is marked.
fn mark_one(
    tx: &Rc<Tx>,
    handlers: &Handlers,
    key: &JsValue,
    cause: JsValue,
    out: Rc<Cell<u32>>,
    unnamed: Option<Unnamed>,
) {
    let Ok(get) = tx.results.get(key) else { return };
    let tx = tx.clone();
    handlers.on(&get, move |request| {
        let Ok(record) = request.result() else { return };
        if !record.is_object() {
            return;
        }
        if let Some(Unnamed { row, matches }) = &unnamed {
            let name = field(&record, fields::SOURCE_TOOL_NAME)
                .as_string()
                .unwrap_or_else(|| UNKNOWN_SOURCE_TOOL.to_owned());
            if Reflect::set(row, &fields::SOURCE_TOOL_NAME.into(), &name.as_str().into()).is_ok() {
                let _ = tx.usage.put(row);
            }
            if !matches(&name) {
                return;
            }
        }
        let stale = field(&record, fields::STALE_CAUSE).is_string();
        if !stale
            && Reflect::set(&record, &fields::STALE_CAUSE.into(), &cause).is_ok()
            && tx.results.put(&record).is_ok()
        {
            out.set(out.get() + 1);
        }
    });
}
