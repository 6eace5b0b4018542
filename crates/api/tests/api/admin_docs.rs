//! docs/admin-api.md is checked against the OpenAPI document: every endpoint it documents
//! exists with that method, and every admin endpoint of the document is documented there
//! (or, for bands, in docs/admin-auth-and-bands.md).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bandmap_test_support::spawn_app;
use std::collections::BTreeSet;

/// `(method, path)` of every `### METHOD /path` heading, `:id` turned into `{id}`.
fn documented(markdown: &str) -> BTreeSet<(String, String)> {
    markdown
        .lines()
        .filter_map(|l| l.strip_prefix("### "))
        .filter_map(|h| {
            let (method, path) = h.split_once(' ')?;
            if !matches!(method, "GET" | "POST" | "PATCH" | "PUT" | "DELETE") {
                return None;
            }
            let path = path
                .split('/')
                .map(|seg| match seg.strip_prefix(':') {
                    Some(name) => format!("{{{name}}}"),
                    None => seg.to_string(),
                })
                .collect::<Vec<_>>()
                .join("/");
            Some((method.to_lowercase(), path))
        })
        .collect()
}

#[tokio::test]
async fn admin_api_doc_matches_the_openapi_document() {
    let app = spawn_app().await;
    let doc = app.openapi().await;
    let in_openapi: BTreeSet<(String, String)> = doc["paths"]
        .as_object()
        .unwrap()
        .iter()
        .flat_map(|(path, ops)| {
            ops.as_object()
                .unwrap()
                .keys()
                .map(move |m| (m.clone(), path.clone()))
        })
        .collect();
    let markdown = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/admin-api.md"
    ))
    .unwrap();
    let documented = documented(&markdown);
    assert!(documented.len() >= 22, "{documented:?}");
    for op in &documented {
        assert!(
            in_openapi.contains(op),
            "documented but not in OpenAPI: {op:?}"
        );
    }
    for (method, path) in &in_openapi {
        if path.starts_with("/admin/api/") && !path.starts_with("/admin/api/bands") {
            assert!(
                documented.contains(&(method.clone(), path.clone())),
                "undocumented: {method} {path}"
            );
        }
    }
    assert!(
        markdown.contains("admin-auth-and-bands.md"),
        "points to the auth/bands page"
    );
}
