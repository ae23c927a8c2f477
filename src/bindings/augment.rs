//! `augmentTools`: declares `<name>_uri` reference parameters in the tools of MCP servers that
//! do not know references. The rules live in [`crate::core::augment`]; this module reads each
//! tool's JSON Schema into that model and builds the augmented copies.
//!
//! Every read of a caller's value is a catching one, and each object is checked with
//! [`check_readable`] before it is read: a revoked `Proxy` or a throwing getter anywhere on the
//! path (the list, a tool, its `inputSchema`, `properties`, a property schema, `required`) is a
//! `TypeError`, never an exception unwinding through WebAssembly. Caller keys are copied as the
//! exact JS strings they are (a key with a lone surrogate stays intact) and defined as data
//! properties, so keys such as `__proto__` stay plain data and no setter runs.

use js_sys::{Array, Object, Reflect};
use wasm_bindgen::prelude::*;

use super::js_error::type_error;
use crate::core::augment::{
    described_value, plan_siblings, AugmentOptions, Property, SchemaFacts, Sibling,
    URI_SIBLING_DESCRIPTION,
};
use crate::js_args::{
    array_items, check_readable, define, define_key, get_own, is_array, keys as object_keys,
    options_object, read, well_formed, ARRAY_LIMIT,
};

const EXPECTS: &str =
    "augmentTools expects an array of tools or a tools/list result ({ tools: [...] })";

#[wasm_bindgen(typescript_custom_section)]
const AUGMENT_TOOLS_RESULT_TS: &'static str = r#"
/**
 * `augmentTools` on a whole `tools/list` result: the same shape back (other keys such as
 * `nextCursor` kept), with `tools` augmented as for the array form.
 */
export function augmentTools<T extends { tools: readonly McpTool[] }>(result: T, options?: AugmentToolsOptions): Omit<T, "tools"> & { tools: McpTool[] };
"#;

/// The `TypeError` for a value of the path that cannot be read.
fn unreadable(what: &str) -> JsValue {
    let mut message = String::from("augmentTools: ");
    message.push_str(what);
    message.push_str(" cannot be read (a getter threw, or it is a revoked Proxy)");
    type_error(&message)
}

/// Checks that `value`'s top level reads without throwing (see [`check_readable`]).
fn readable(value: &JsValue, what: &str) -> Result<(), JsValue> {
    check_readable(value, what).map_err(|_| unreadable(what))
}

/// An object that is not an array (after [`readable`]).
fn is_plain(value: &JsValue) -> bool {
    value.is_object() && !is_array(value)
}

/// An array (after [`readable`]).
fn is_list(value: &JsValue) -> bool {
    value.is_object() && is_array(value)
}

/// The own enumerable keys, as the exact JS strings.
fn keys(object: &JsValue, what: &str) -> Result<Array, JsValue> {
    object_keys(object).map_err(|_| unreadable(what))
}

/// `object[key]`, caught.
fn value_at(object: &JsValue, key: &JsValue, what: &str) -> Result<JsValue, JsValue> {
    Reflect::get(object, key).map_err(|_| unreadable(what))
}

/// The items of an array of at most [`ARRAY_LIMIT`] items, checked with [`readable`].
fn items(array: &JsValue, what: &str) -> Result<Vec<JsValue>, JsValue> {
    // A `length` that throws is a TypeError here (`array_length` would read it as 0).
    let length = read(array, "length").map_err(|_| unreadable(what))?;
    if length.as_f64().unwrap_or(0.0) > f64::from(ARRAY_LIMIT) {
        return Err(type_error(
            "augmentTools: an array has more than 1048576 items",
        ));
    }
    readable(array, what)?;
    Ok(array_items(array))
}

/// A copy of `source`'s own enumerable properties in their order, with `value` in place of
/// `name` (appended when `source` lacks it).
fn copy_replacing(
    source: &JsValue,
    name: &str,
    value: &JsValue,
    what: &str,
) -> Result<Object, JsValue> {
    let copy = Object::new();
    let mut placed = false;
    let source_keys = keys(source, what)?;
    for i in 0..source_keys.length() {
        let key = source_keys.get(i);
        if key.as_string().as_deref() == Some(name) {
            placed = true;
            define(&copy, name, value);
        } else {
            define_key(&copy, &key, &value_at(source, &key, what)?);
        }
    }
    if !placed {
        define(&copy, name, value);
    }
    Ok(copy)
}

/// The `type` keyword's names (a string, or the strings of a list).
fn type_names(schema: &JsValue) -> Result<Vec<String>, JsValue> {
    let value = get_own(schema, "type");
    let mut names = Vec::new();
    if let Some(name) = value.as_string() {
        names.push(name);
    } else {
        readable(&value, "a `type` list")?;
        if is_list(&value) {
            for item in items(&value, "a `type` list")? {
                names.extend(item.as_string());
            }
        }
    }
    Ok(names)
}

/// The facts of one schema; `branches` reads `anyOf` / `oneOf` one level deep.
fn schema_facts(schema: &JsValue, branches: bool) -> Result<SchemaFacts, JsValue> {
    const WHAT: &str = "a property schema";
    readable(schema, WHAT)?;
    let mut facts = SchemaFacts::default();
    if !is_plain(schema) {
        return Ok(facts); // `true`, `false`, or not a schema
    }
    let present = |key| !get_own(schema, key).is_undefined();
    facts.types = type_names(schema)?;
    facts.has_items = present("items") || present("prefixItems");
    facts.has_properties = present("properties");
    if branches {
        for keyword in ["anyOf", "oneOf"] {
            let list = get_own(schema, keyword);
            readable(&list, "an `anyOf`/`oneOf` list")?;
            if is_list(&list) {
                for branch in items(&list, "an `anyOf`/`oneOf` list")? {
                    facts.branches.push(schema_facts(&branch, false)?);
                }
            }
        }
    }
    Ok(facts)
}

/// One tool, augmented: a copy when it gains a sibling, else the very same value.
fn augment_tool(tool: JsValue, options: AugmentOptions) -> Result<JsValue, JsValue> {
    readable(&tool, "a tool")?;
    if !is_plain(&tool) {
        return Ok(tool);
    }
    let schema = get_own(&tool, "inputSchema");
    readable(&schema, "inputSchema")?;
    if !is_plain(&schema) {
        return Ok(tool);
    }
    let schema_types = SchemaFacts {
        types: type_names(&schema)?,
        ..SchemaFacts::default()
    };
    if !schema_types.may_be_object_schema() {
        return Ok(tool);
    }
    let properties = get_own(&schema, "properties");
    readable(&properties, "inputSchema.properties")?;
    if !is_plain(&properties) {
        return Ok(tool);
    }

    // The model: well-formed names only (a lone surrogate would not survive into Rust).
    const PROPERTIES: &str = "inputSchema.properties";
    let property_keys = keys(&properties, PROPERTIES)?;
    let mut model = Vec::new();
    let mut model_index = Vec::new();
    for i in 0..property_keys.length() {
        let key = property_keys.get(i);
        let Some(name) = well_formed(&key) else {
            model_index.push(None);
            continue;
        };
        model_index.push(Some(model.len()));
        let facts = schema_facts(&value_at(&properties, &key, PROPERTIES)?, true)?;
        model.push(Property { name, facts });
    }
    let required = get_own(&schema, "required");
    readable(&required, "inputSchema.required")?;
    let required_items = if is_list(&required) {
        items(&required, "inputSchema.required")?
    } else {
        Vec::new()
    };
    let mut required_names = Vec::new();
    for item in &required_items {
        required_names.extend(well_formed(item));
    }

    let plan = plan_siblings(&model, &required_names, options);
    if plan.is_empty() {
        return Ok(tool);
    }

    let new_properties = Object::new();
    for (i, index) in model_index.into_iter().enumerate() {
        let key = property_keys.get(i as u32);
        let value = value_at(&properties, &key, PROPERTIES)?;
        let Some(sibling) = index.and_then(|m| plan.iter().find(|s| s.property == m)) else {
            define_key(&new_properties, &key, &value);
            continue;
        };
        define_key(&new_properties, &key, &described(&value, sibling)?);
        let uri_schema = Object::new();
        define(&uri_schema, "type", &JsValue::from_str("string"));
        define(
            &uri_schema,
            "description",
            &JsValue::from_str(URI_SIBLING_DESCRIPTION),
        );
        define(&new_properties, &sibling.uri_name, &uri_schema);
    }

    let mut new_schema = copy_replacing(&schema, "properties", &new_properties, "inputSchema")?;
    if plan.iter().any(|s| s.unrequire) {
        let kept = Array::new();
        for item in required_items {
            let dropped = plan
                .iter()
                .any(|s| s.unrequire && item == JsValue::from_str(&model[s.property].name));
            if !dropped {
                kept.push(&item);
            }
        }
        new_schema = copy_replacing(&new_schema, "required", &kept, "inputSchema")?;
    }
    Ok(copy_replacing(&tool, "inputSchema", &new_schema, "a tool")?.into())
}

/// A copy of a property schema whose description ends with the note about its sibling (a
/// schema that is not an object, such as `true`, stays as it is).
fn described(schema: &JsValue, sibling: &Sibling) -> Result<JsValue, JsValue> {
    if !is_plain(schema) {
        return Ok(schema.clone());
    }
    let original = get_own(schema, "description").as_string();
    let text = described_value(original.as_deref(), &sibling.uri_name);
    let copy = copy_replacing(
        schema,
        "description",
        &JsValue::from_str(&text),
        "a property schema",
    )?;
    Ok(copy.into())
}

fn augment_list(list: &JsValue, options: AugmentOptions) -> Result<Array, JsValue> {
    let out = Array::new();
    for tool in items(list, "tools")? {
        out.push(&augment_tool(tool, options)?);
    }
    Ok(out)
}

fn read_options(options: Option<JsValue>) -> Result<AugmentOptions, JsValue> {
    let Some(options) = options_object(&options.unwrap_or(JsValue::UNDEFINED), "options")? else {
        return Ok(AugmentOptions::default());
    };
    let objects = read(&options, "objects")?;
    if objects.is_undefined() {
        return Ok(AugmentOptions::default());
    }
    objects
        .as_bool()
        .map(|objects| AugmentOptions { objects })
        .ok_or_else(|| type_error("augmentTools: options.objects must be a boolean"))
}

/// `augmentTools(tools, options?)`: declares `<name>_uri` reference parameters for servers that
/// never heard of references, so that models see them and strict tool-calling modes accept them.
///
/// `tools` is the `tools` array of an MCP `tools/list` result, or the whole result
/// (`{ tools: [...] }`, returned in the same shape with its other keys kept). For each tool
/// whose `inputSchema` is an object schema with `properties`, every top-level property that
/// takes an array (`type: "array"` or a `type` list with it, `items`/`prefixItems`, or an
/// `anyOf`/`oneOf` branch typed `"array"`) gains a sibling
/// `<name>_uri: { type: "string", description }` placed right after it, whose description
/// tells the model to copy an `mcp+cache://` value verbatim from an earlier result (its
/// `_cache_uri`, or a value of its `_cache_refs`), to prefer it over re-typing the data, and
/// that `#/json/pointer` may be appended. With `{ objects: true }`, properties that take an
/// object (`type: "object"`, `properties`) get one too.
///
/// `<name>` is then no longer `required` (the host's `beforeToolCall` fills it from the
/// reference before the server sees the call), and its description ends with "Or pass
/// `<name>_uri` instead (…)." No `anyOf` is added; with `additionalProperties: false`, both
/// `{ data: [...] }` and `{ data_uri: "mcp+cache://…" }` validate.
///
/// Left alone: a property whose `<name>_uri` is already declared (servers built for
/// references; augmenting twice changes nothing), a property whose name ends in `_uri`, a
/// property given only by `$ref` (not followed), and tools without a usable schema (no
/// `inputSchema`, a non-object schema, no `properties`). Tools that gain nothing come back as
/// the very same objects; augmented tools are copies (the tool, `inputSchema`, `properties`,
/// `required` and the touched property schemas; everything else is shared). The input is never
/// mutated.
///
/// Throws a `TypeError` when `tools` is neither an array nor `{ tools: [...] }`, when
/// `options.objects` is not a boolean, or when a value on the way cannot be read (a revoked
/// `Proxy`, a throwing getter).
///
/// ```js
/// const { tools } = await client.listTools();
/// const augmented = augmentTools(tools);
/// // chart.create's inputSchema.properties now has data_uri next to data.
/// ```
#[wasm_bindgen(js_name = augmentTools, unchecked_return_type = "McpTool[]")]
pub fn augment_tools(
    #[wasm_bindgen(unchecked_param_type = "readonly McpTool[]")] tools: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "AugmentToolsOptions")] options: Option<JsValue>,
) -> Result<JsValue, JsValue> {
    let options = read_options(options)?;
    readable(&tools, "tools")?;
    if !tools.is_object() {
        return Err(type_error(EXPECTS));
    }
    if is_array(&tools) {
        return Ok(augment_list(&tools, options)?.into());
    }
    let list = get_own(&tools, "tools");
    readable(&list, "tools")?;
    if !is_list(&list) {
        return Err(type_error(EXPECTS));
    }
    let augmented = augment_list(&list, options)?;
    Ok(copy_replacing(&tools, "tools", &augmented, "the tools/list result")?.into())
}
