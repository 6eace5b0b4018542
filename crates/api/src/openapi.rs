//! The OpenAPI 3.1 document (`GET /api/openapi.json`), assembled from the routes each module
//! registers, so it grows with every endpoint.

use utoipa::OpenApi;
use utoipa::openapi::security::{ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityScheme};

/// Document metadata and shared components.
#[derive(OpenApi)]
#[openapi(
    info(title = "Band Map API", description = "Public map API, admin API and admin authentication of Band Map."),
    components(schemas(crate::error::ErrorBody, crate::error::ErrorDetail)),
    modifiers(&SecuritySchemes)
)]
pub struct ApiDoc;

struct SecuritySchemes;

impl utoipa::Modify for SecuritySchemes {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "session",
            SecurityScheme::ApiKey(ApiKey::Cookie(ApiKeyValue::new("bandmap_session"))),
        );
        components.add_security_scheme(
            "import_token",
            SecurityScheme::Http(HttpBuilder::new().scheme(HttpAuthScheme::Bearer).build()),
        );
    }
}
