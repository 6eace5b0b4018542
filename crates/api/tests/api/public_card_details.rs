//! `GET /api/bands/{ma_id}`: themes, label and years active on the public card (the map
//! page's card shows them), from the catalogue columns or else the band page.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bandmap_test_support::app::spawn_app;
use serde_json::{Value, json};

const SEED: &str = r#"
INSERT INTO bands (ma_id, name, themes, label, years_active, band_page) VALUES
 (1, 'Columns', 'Darkness, Winter', 'Peaceville', '1991-2004, 2010-present', NULL),
 (2, 'From the page', '', NULL, NULL,
     '{"lyrical_themes": "War", "label": "Osmose Productions", "years_active": "1995-present"}'),
 (3, 'Unknown', NULL, NULL, NULL, NULL);
"#;

#[tokio::test]
async fn card_carries_themes_label_and_years_active() {
    let app = spawn_app().await;
    sqlx::raw_sql(SEED).execute(&app.db.pool).await.unwrap();
    let get = |id: i64| {
        let url = app.url(&format!("/api/bands/{id}"));
        let client = app.client.clone();
        async move {
            let res = client.get(url).send().await.unwrap();
            assert_eq!(res.status(), 200);
            res.json::<Value>().await.unwrap()
        }
    };
    let b = get(1).await;
    assert_eq!(b["themes"], json!("Darkness, Winter"));
    assert_eq!(b["label"], json!("Peaceville"));
    assert_eq!(b["years_active"], json!("1991-2004, 2010-present"));
    let b = get(2).await;
    assert_eq!(
        b["themes"],
        json!("War"),
        "an empty column falls back to the page"
    );
    assert_eq!(b["label"], json!("Osmose Productions"));
    assert_eq!(b["years_active"], json!("1995-present"));
    let b = get(3).await;
    for k in ["themes", "label", "years_active"] {
        assert!(b.get(k).is_none(), "{k} absent when unknown: {b}");
    }
}
