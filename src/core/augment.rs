//! Schema augmentation: declaring `<name>_uri` reference parameters for MCP servers that never
//! heard of references.
//!
//! A model fills in the parameters a tool's schema declares, and strict tool-calling modes
//! reject undeclared ones, so a host that substitutes `<name>_uri` references must declare those
//! parameters itself. For each top-level property of a tool's `inputSchema` that takes an array
//! (and, on request, an object), [`plan_siblings`] decides to add a sibling
//! `<name>_uri: { "type": "string", "description": URI_SIBLING_DESCRIPTION }`, to drop `<name>`
//! from `required` (the host fills it from the reference before the server sees the call), and
//! to say so in `<name>`'s description ([`described_value`]).
//!
//! No `anyOf` "one of them is required" is added: strict modes handle it poorly. With the
//! sibling declared in `properties`, a schema with `additionalProperties: false` accepts both
//! `{data: [...]}` and `{data_uri: "mcp+cache://…"}`.
//!
//! The rules here work on a small model of the schema ([`SchemaFacts`], [`Property`]); the
//! binding reads the JSON Schema (a JS value) into it and builds the augmented copy.

use super::substitute::URI_ARG_SUFFIX;

/// Description of every added `<name>_uri` parameter, written for the model.
pub const URI_SIBLING_DESCRIPTION: &str = "Reference to data returned by an earlier tool call: \
     copy an mcp+cache:// value verbatim from that result (its `_cache_uri`, or a value of its \
     `_cache_refs`). Prefer this over re-typing the data. Append #/path (a JSON Pointer) to use \
     part of the result, e.g. mcp+cache://abc/XYZ#/rows.";

/// Start of the sentence appended to the description of a property that gains a sibling.
const NOTE_HEAD: &str = "Or pass `";
/// End of that sentence.
const NOTE_TAIL: &str = "` instead (a reference to an earlier result).";

/// What one JSON Schema says about the shape of its values, as far as augmentation cares.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SchemaFacts {
    /// The `type` keyword: its one name, or every string of a type list; empty when absent.
    pub types: Vec<String>,
    /// `items` or `prefixItems` is present.
    pub has_items: bool,
    /// `properties` is present.
    pub has_properties: bool,
    /// The facts of each `anyOf` / `oneOf` branch. Only one level is read: the branches of a
    /// branch are left empty.
    pub branches: Vec<SchemaFacts>,
}

impl SchemaFacts {
    fn has_type(&self, name: &str) -> bool {
        self.types.iter().any(|t| t == name)
    }

    fn is_array_here(&self) -> bool {
        self.has_type("array") || self.has_items
    }

    fn is_object_here(&self) -> bool {
        self.has_type("object") || self.has_properties
    }

    /// The schema accepts arrays: `type` is (or lists) `"array"`, `items`/`prefixItems` is
    /// present, or an `anyOf`/`oneOf` branch says so.
    pub fn takes_array(&self) -> bool {
        self.is_array_here() || self.branches.iter().any(Self::is_array_here)
    }

    /// The schema accepts objects: `type` is (or lists) `"object"`, `properties` is present, or
    /// an `anyOf`/`oneOf` branch says so.
    pub fn takes_object(&self) -> bool {
        self.is_object_here() || self.branches.iter().any(Self::is_object_here)
    }

    /// Could be the schema of an argument object: no `type`, or a `type` that is (or lists)
    /// `"object"`. An `inputSchema` for which this is false is left alone.
    pub fn may_be_object_schema(&self) -> bool {
        self.types.is_empty() || self.has_type("object")
    }
}

/// One top-level property of an `inputSchema`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Property {
    /// The property name.
    pub name: String,
    /// What its schema accepts (default facts for a schema that is not an object, e.g. `true`).
    pub facts: SchemaFacts,
}

/// Options of [`plan_siblings`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AugmentOptions {
    /// Also give properties that take an object a `_uri` sibling (arrays always get one).
    pub objects: bool,
}

/// One `<name>_uri` sibling to add.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sibling {
    /// Index of the property in the list given to [`plan_siblings`].
    pub property: usize,
    /// The sibling's name, `<name>_uri`.
    pub uri_name: String,
    /// `<name>` was required: it is dropped from `required`.
    pub unrequire: bool,
}

/// `<name>_uri`.
pub fn sibling_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + URI_ARG_SUFFIX.len());
    out.push_str(name);
    out.push_str(URI_ARG_SUFFIX);
    out
}

/// The siblings to add to one schema, in property order. A property gets one when it takes an
/// array (or, with `options.objects`, an object), unless:
/// - its name is empty or already ends in `_uri` (it is a reference parameter itself:
///   `x_uri_uri` would resolve into `x_uri`);
/// - the schema already declares `<name>_uri` (a server built for references, or an
///   already-augmented schema: augmenting twice changes nothing).
pub fn plan_siblings(
    properties: &[Property],
    required: &[String],
    options: AugmentOptions,
) -> Vec<Sibling> {
    let mut plan = Vec::new();
    for (i, p) in properties.iter().enumerate() {
        let takes = p.facts.takes_array() || (options.objects && p.facts.takes_object());
        if !takes || p.name.is_empty() || p.name.ends_with(URI_ARG_SUFFIX) {
            continue;
        }
        let uri_name = sibling_name(&p.name);
        if properties.iter().any(|q| q.name == uri_name) {
            continue;
        }
        plan.push(Sibling {
            property: i,
            uri_name,
            unrequire: required.contains(&p.name),
        });
    }
    plan
}

/// The description of a property that gained the sibling `uri_name`: the original text first
/// (when there is one), then "Or pass `<uri_name>` instead (a reference to an earlier result)."
pub fn described_value(original: Option<&str>, uri_name: &str) -> String {
    let original = original.unwrap_or("");
    let mut out = String::with_capacity(
        original.len() + 1 + NOTE_HEAD.len() + uri_name.len() + NOTE_TAIL.len(),
    );
    out.push_str(original);
    if !original.trim().is_empty() && !original.ends_with(char::is_whitespace) {
        out.push(' ');
    }
    out.push_str(NOTE_HEAD);
    out.push_str(uri_name);
    out.push_str(NOTE_TAIL);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn types(list: &[&str]) -> SchemaFacts {
        SchemaFacts {
            types: list.iter().map(|t| (*t).to_owned()).collect(),
            ..SchemaFacts::default()
        }
    }

    fn strings(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    fn prop(name: &str, facts: SchemaFacts) -> Property {
        Property {
            name: name.to_owned(),
            facts,
        }
    }

    const ARRAYS: AugmentOptions = AugmentOptions { objects: false };
    const OBJECTS: AugmentOptions = AugmentOptions { objects: true };

    #[test]
    fn array_classification() {
        assert!(types(&["array"]).takes_array());
        assert!(types(&["array", "null"]).takes_array());
        assert!(SchemaFacts {
            has_items: true,
            ..SchemaFacts::default()
        }
        .takes_array());
        let branch = SchemaFacts {
            branches: vec![types(&["string"]), types(&["array"])],
            ..SchemaFacts::default()
        };
        assert!(branch.takes_array());
        assert!(!branch.takes_object());
        for facts in [
            types(&[]),
            types(&["string"]),
            types(&["object"]),
            types(&["integer", "null"]),
        ] {
            assert!(!facts.takes_array(), "{facts:?}");
        }
    }

    #[test]
    fn object_classification() {
        assert!(types(&["object"]).takes_object());
        assert!(types(&["null", "object"]).takes_object());
        assert!(SchemaFacts {
            has_properties: true,
            ..SchemaFacts::default()
        }
        .takes_object());
        assert!(SchemaFacts {
            branches: vec![types(&["object"])],
            ..SchemaFacts::default()
        }
        .takes_object());
        assert!(!types(&["array"]).takes_object());
        assert!(!types(&[]).takes_object());
    }

    #[test]
    fn only_one_level_of_branches_is_read() {
        let nested = SchemaFacts {
            branches: vec![SchemaFacts {
                branches: vec![types(&["array"])],
                ..SchemaFacts::default()
            }],
            ..SchemaFacts::default()
        };
        assert!(!nested.takes_array());
    }

    #[test]
    fn input_schema_must_be_an_object_schema() {
        assert!(types(&[]).may_be_object_schema());
        assert!(types(&["object"]).may_be_object_schema());
        assert!(types(&["object", "null"]).may_be_object_schema());
        assert!(!types(&["array"]).may_be_object_schema());
        assert!(!types(&["string"]).may_be_object_schema());
    }

    #[test]
    fn arrays_gain_a_sibling_and_stop_being_required() {
        let props = [
            prop("title", types(&["string"])),
            prop("data", types(&["array"])),
            prop("series", types(&["array"])),
        ];
        let plan = plan_siblings(&props, &strings(&["title", "data"]), ARRAYS);
        assert_eq!(
            plan,
            vec![
                Sibling {
                    property: 1,
                    uri_name: "data_uri".into(),
                    unrequire: true
                },
                Sibling {
                    property: 2,
                    uri_name: "series_uri".into(),
                    unrequire: false
                },
            ]
        );
    }

    #[test]
    fn objects_only_with_the_option() {
        let props = [
            prop("filter", types(&["object"])),
            prop("rows", types(&["array"])),
        ];
        let names = |options| -> Vec<String> {
            plan_siblings(&props, &[], options)
                .into_iter()
                .map(|s| s.uri_name)
                .collect()
        };
        assert_eq!(names(ARRAYS), ["rows_uri"]);
        assert_eq!(names(OBJECTS), ["filter_uri", "rows_uri"]);
    }

    #[test]
    fn existing_siblings_are_left_alone() {
        let props = [
            prop("data", types(&["array"])),
            prop("data_uri", types(&["string"])),
        ];
        assert!(plan_siblings(&props, &strings(&["data"]), OBJECTS).is_empty());
    }

    #[test]
    fn reference_parameters_and_empty_names_get_no_sibling() {
        let props = [
            prop("series_uri", types(&["array"])),
            prop("", types(&["array"])),
            prop("_uri", types(&["object"])),
        ];
        assert!(plan_siblings(&props, &[], OBJECTS).is_empty());
    }

    #[test]
    fn augmenting_twice_changes_nothing() {
        let mut props = vec![
            prop("data", types(&["array"])),
            prop("config", types(&["object"])),
            prop("n", types(&["integer"])),
        ];
        let mut required = vec!["data".to_owned(), "n".to_owned()];
        let plan = plan_siblings(&props, &required, OBJECTS);
        assert_eq!(plan.len(), 2);
        for sibling in &plan {
            let name = &props[sibling.property].name;
            if sibling.unrequire {
                required.retain(|r| r != name);
            }
        }
        for sibling in plan {
            props.push(prop(&sibling.uri_name, types(&["string"])));
        }
        assert_eq!(required, ["n"]);
        let again = plan_siblings(&props, &required, OBJECTS);
        assert!(again.is_empty(), "{again:?}");
    }

    #[test]
    fn descriptions_keep_the_original_text_first() {
        assert_eq!(
            described_value(Some("Rows to plot."), "data_uri"),
            "Rows to plot. Or pass `data_uri` instead (a reference to an earlier result)."
        );
        assert_eq!(
            described_value(Some("Rows\n"), "data_uri"),
            "Rows\nOr pass `data_uri` instead (a reference to an earlier result)."
        );
        for empty in [None, Some(""), Some("  ")] {
            let text = described_value(empty, "rows_uri");
            assert!(
                text.ends_with("Or pass `rows_uri` instead (a reference to an earlier result).")
            );
            assert!(text.trim_start().starts_with("Or pass"), "{text}");
        }
    }

    #[test]
    fn sibling_description_guides_the_model() {
        for needle in [
            "mcp+cache://",
            "verbatim",
            "`_cache_uri`",
            "`_cache_refs`",
            "Prefer this over re-typing",
            "JSON Pointer",
        ] {
            assert!(URI_SIBLING_DESCRIPTION.contains(needle), "{needle}");
        }
        assert_eq!(sibling_name("data"), "data_uri");
    }
}
