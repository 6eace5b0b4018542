//! The deployment files, checked as far as possible without Docker: every variable in
//! compose.yaml and deploy/bandmap.env.example is one the configuration knows (or one of the
//! other images' documented variables), the example values pass the configuration's own
//! checks, every bandmap `command:` is a real subcommand, the image runs `bandmap` as a
//! non-root user and is built with every front-end folder the binary embeds, and the nginx
//! example routes every path the server serves to the serve replicas with the proxy headers
//! the server reads.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::deploy_support::nginx::{self, Directive};
use crate::deploy_support::{env_assignments, interpolate, read};
use serde_yaml_ng::Value;
use std::collections::HashMap;

/// Variables of the other images, from their documentation, per image.
const IMAGE_VARIABLES: &[(&str, &[&str])] = &[
    (
        "postgis/postgis",
        &[
            "POSTGRES_USER",
            "POSTGRES_PASSWORD",
            "POSTGRES_DB",
            "POSTGRES_INITDB_ARGS",
            "PGDATA",
        ],
    ),
    (
        "ghcr.io/flaresolverr/flaresolverr",
        &[
            "LOG_LEVEL",
            "LOG_HTML",
            "TZ",
            "LANG",
            "HEADLESS",
            "BROWSER_TIMEOUT",
            "PORT",
            "HOST",
        ],
    ),
    ("nginx", &[]),
];

/// Variables of bandmap containers that the configuration does not read but a library
/// does: `NO_COLOR` turns off tracing-subscriber's ANSI colours.
const RUNTIME_VARIABLES: &[&str] = &["NO_COLOR"];

/// Variables of the example env file that are not bandmap's: read by compose itself.
const COMPOSE_VARIABLES: &[&str] = &["POSTGRES_PASSWORD"];

fn is_known(name: &str) -> bool {
    bandmap_config::VARIABLES.iter().any(|v| v.name == name)
}

/// The settings every bandmap container gets (`env_file:`).
fn settings_example() -> Vec<(String, String)> {
    env_assignments(&read("deploy/bandmap.env.example"))
}

/// The secrets compose interpolates (`--env-file`), each into the services that name it.
fn secrets_example() -> Vec<(String, String)> {
    env_assignments(&read("deploy/secrets.env.example"))
}

/// Both example files: what an operator fills in.
fn example() -> Vec<(String, String)> {
    settings_example()
        .into_iter()
        .chain(secrets_example())
        .collect()
}

/// The secrets, and the bandmap services allowed to receive each (issue 31).
const SECRETS: &[(&str, &[&str])] = &[
    ("ADMIN_SEED_USERNAME", &["serve-1", "serve-2"]),
    ("ADMIN_SEED_PASSWORD", &["serve-1", "serve-2"]),
    ("ADMIN_SEED_PASSWORD_HASH", &["serve-1", "serve-2"]),
    ("ADMIN_JWT_SECRET", &["serve-1", "serve-2"]),
    ("BANDMAP_IMPORT_TOKEN", &["serve-1", "serve-2"]),
    ("GEOCODING_API_KEY", &["geocoder"]),
    ("LLM_API_KEY", &["llm"]),
];

/// compose.yaml interpolated with the example's values (as `--env-file` does), merge keys
/// applied.
fn compose() -> (Value, Vec<String>) {
    let (text, names) = interpolate(&read("compose.yaml"), &example());
    let mut doc: Value = serde_yaml_ng::from_str(&text).unwrap();
    doc.apply_merge().unwrap();
    (doc, names)
}

fn services(doc: &Value) -> Vec<(String, &Value)> {
    doc["services"]
        .as_mapping()
        .expect("services")
        .iter()
        .map(|(k, v)| (k.as_str().unwrap().to_string(), v))
        .collect()
}

fn image(service: &Value) -> &str {
    service["image"]
        .as_str()
        .expect("every service names its image")
}

fn is_bandmap(service: &Value) -> bool {
    image(service).starts_with("bandmap:")
}

/// The `environment:` of a service, as a map or a `NAME=value` list.
fn environment(service: &Value) -> Vec<(String, String)> {
    match &service["environment"] {
        Value::Mapping(m) => m
            .iter()
            .map(|(k, v)| {
                let v = match v {
                    Value::String(s) => s.clone(),
                    other => serde_yaml_ng::to_string(other).unwrap().trim().to_string(),
                };
                (k.as_str().unwrap().to_string(), v)
            })
            .collect(),
        Value::Sequence(list) => env_assignments(
            &list
                .iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join("\n"),
        ),
        _ => Vec::new(),
    }
}

fn command(service: &Value) -> Vec<String> {
    match &service["command"] {
        Value::Sequence(list) => list
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect(),
        Value::String(s) => s.split_whitespace().map(str::to_string).collect(),
        other => panic!("bandmap service without a command: {other:?}"),
    }
}

#[test]
fn compose_variables_are_known() {
    let (doc, _) = compose();
    for (name, service) in services(&doc) {
        let allowed: &[&str] = if is_bandmap(service) {
            &[]
        } else {
            IMAGE_VARIABLES
                .iter()
                .find(|(prefix, _)| image(service).starts_with(prefix))
                .unwrap_or_else(|| panic!("{name}: image {} not listed here", image(service)))
                .1
        };
        for (var, _) in environment(service) {
            let ok = if is_bandmap(service) {
                is_known(&var) || RUNTIME_VARIABLES.contains(&var.as_str())
            } else {
                allowed.contains(&var.as_str())
            };
            assert!(ok, "{name}: unknown variable {var}");
        }
        if is_bandmap(service) {
            let files = service["env_file"].as_str().expect("env_file");
            assert_eq!(files, "deploy/bandmap.env", "{name}");
        }
    }
}

#[test]
fn compose_interpolation_is_fed_by_the_secrets_file() {
    let (_, names) = compose();
    let secrets = secrets_example();
    assert!(!names.is_empty());
    for name in names {
        assert!(
            COMPOSE_VARIABLES.contains(&name.as_str()) || SECRETS.iter().any(|(s, _)| *s == name),
            "{name}: neither a compose variable nor a secret"
        );
        assert!(
            secrets.iter().any(|(n, _)| *n == name),
            "{name}: not in deploy/secrets.env.example"
        );
    }
}

#[test]
fn each_secret_reaches_only_the_containers_that_need_it() {
    // Issue 31: every container received every secret through the shared env file.
    for (name, _) in settings_example() {
        assert!(
            !SECRETS.iter().any(|(s, _)| *s == name) && name != "POSTGRES_PASSWORD",
            "{name} is a secret: it belongs in deploy/secrets.env.example"
        );
    }
    let (doc, _) = compose();
    let mut received: Vec<(String, String)> = Vec::new();
    for (service, def) in services(&doc) {
        for (var, _) in environment(def) {
            if let Some((_, allowed)) = SECRETS.iter().find(|(s, _)| *s == var) {
                assert!(
                    allowed.contains(&service.as_str()),
                    "{service} receives {var}"
                );
                received.push((service.clone(), var));
            }
        }
    }
    for (secret, allowed) in SECRETS {
        for service in *allowed {
            assert!(
                received.iter().any(|(s, v)| s == service && v == secret),
                "{service} does not receive {secret}"
            );
        }
    }
    let flaresolverr = image(
        services(&doc)
            .iter()
            .find(|(n, _)| n == "flaresolverr")
            .expect("flaresolverr")
            .1,
    )
    .to_string();
    for (name, def) in services(&doc) {
        assert!(
            !image(def).ends_with(":latest") || is_bandmap(def),
            "{name}: {}",
            image(def)
        );
    }
    assert!(!flaresolverr.ends_with(":latest"), "{flaresolverr}");
}

#[test]
fn a_client_on_a_private_address_cannot_choose_its_address_under_the_shipped_configuration() {
    // Issue 31: the example trusted every private range, so any container or intranet host
    // could write the X-Forwarded-For it liked.
    let (doc, _) = compose();
    let proxy = services(&doc)
        .into_iter()
        .find(|(n, _)| n == "proxy")
        .expect("proxy")
        .1;
    let address = proxy["networks"]["edge"]["ipv4_address"]
        .as_str()
        .expect("nginx has a fixed address");
    let subnet = doc["networks"]["edge"]["ipam"]["config"][0]["subnet"]
        .as_str()
        .expect("the edge network has a fixed subnet");
    let net: ipnet::IpNet = subnet.parse().unwrap();
    assert!(net.contains(&address.parse::<std::net::IpAddr>().unwrap()));
    let serve = services(&doc)
        .into_iter()
        .find(|(n, _)| n == "serve-1")
        .unwrap()
        .1;
    let vars: HashMap<String, String> = example()
        .into_iter()
        .chain(environment(serve))
        .filter(|(n, _)| is_known(n))
        .collect();
    let config = bandmap_config::Config::from_map(&vars).unwrap();
    assert_eq!(
        config.server.trusted_proxies,
        vec![format!("{address}/32").parse::<ipnet::IpNet>().unwrap()],
        "only nginx is believed"
    );
    let trust = bandmap_api::client_ip::ProxyTrust::from_config(&config.server);
    let forged = |peer: &str, xff: &str| {
        let mut headers = axum::http::HeaderMap::new();
        headers.insert("x-forwarded-for", xff.parse().unwrap());
        bandmap_api::client_ip::client_ip(&headers, Some(peer.parse().unwrap()), trust)
            .unwrap()
            .to_string()
    };
    // Another container on the edge network, an intranet host, a loopback peer: their own.
    for peer in [
        "172.30.80.7:5000",
        "10.1.2.3:5000",
        "192.168.1.9:5000",
        "127.0.0.1:5000",
    ] {
        assert_eq!(
            forged(peer, "203.0.113.9"),
            peer.split(':').next().unwrap(),
            "{peer} chose its address"
        );
    }
    // nginx: the entry it appended, whatever the client wrote to its left.
    assert_eq!(
        forged(&format!("{address}:5000"), "203.0.113.9, 198.51.100.1"),
        "198.51.100.1"
    );
}

#[test]
fn the_quick_start_trusts_no_proxy() {
    // Issue 31: nothing proxies the quick start's server, yet it trusted loopback peers.
    let setup = read("scripts/setup.sh");
    assert!(setup.contains("TRUST_PROXY=false"), "scripts/setup.sh");
}

#[test]
fn example_env_file_is_complete_and_valid() {
    let text = read("deploy/bandmap.env.example") + &read("deploy/secrets.env.example");
    for (name, _) in example() {
        assert!(
            is_known(&name) || COMPOSE_VARIABLES.contains(&name.as_str()),
            "unknown variable {name}"
        );
    }
    for v in bandmap_config::VARIABLES {
        assert!(
            text.contains(v.name),
            "the examples do not mention {}",
            v.name
        );
    }
    // What a serve container sees: the example, then compose's `environment:` on top.
    let (doc, _) = compose();
    let serve = services(&doc)
        .into_iter()
        .find(|(n, _)| n == "serve-1")
        .expect("serve-1")
        .1;
    let vars: HashMap<String, String> = example()
        .into_iter()
        .chain(environment(serve))
        .filter(|(n, _)| is_known(n))
        .collect();
    if let Err(e) = bandmap_config::Config::from_map(&vars) {
        panic!("the example configuration is refused: {e}");
    }
}

#[test]
fn every_bandmap_command_is_a_real_subcommand() {
    let (doc, _) = compose();
    let mut commands: Vec<String> = Vec::new();
    for (name, service) in services(&doc).into_iter().filter(|(_, s)| is_bandmap(s)) {
        let cmd = command(service);
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_bandmap"))
            .args(&cmd)
            .arg("--help")
            .current_dir(std::env::temp_dir())
            .env_clear()
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{name}: `bandmap {}` is not a command",
            cmd.join(" ")
        );
        commands.push(cmd.join(" "));
    }
    commands.sort();
    assert_eq!(
        commands,
        [
            "crawler", "enqueue", "geocoder", "llm", "migrate", "serve", "serve"
        ],
        "two serve replicas and one of each worker"
    );
}

#[test]
fn the_image_runs_bandmap_as_non_root() {
    let dockerfile = read("Dockerfile");
    let last_stage = dockerfile.rsplit("\nFROM ").next().unwrap();
    let line = |word: &str| {
        last_stage
            .lines()
            .find(|l| l.starts_with(word))
            .unwrap_or_else(|| panic!("no {word} in the runtime stage"))
            .to_string()
    };
    assert!(
        line("ENTRYPOINT").contains("bandmap\"]"),
        "{}",
        line("ENTRYPOINT")
    );
    let user = line("USER");
    assert!(!user.contains("root") || user.contains("nonroot"), "{user}");
    let cmd = line("CMD");
    let sub = cmd.trim_start_matches("CMD [\"").trim_end_matches("\"]");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_bandmap"))
        .args([sub, "--help"])
        .env_clear()
        .output()
        .unwrap();
    assert!(out.status.success(), "CMD {sub} is not a command");
}

/// Issue 26: the release build embeds what `crates/api/src/web.rs` includes from `web/`; the
/// image's build stage must hold each of those paths, or the image serves a page whose
/// modules answer 404 (the shared `web/lib/` of the two front ends, for one).
#[test]
fn the_image_builds_with_every_front_end_folder_the_binary_embeds() {
    let web_rs = read("crates/api/src/web.rs");
    let embedded: Vec<&str> = web_rs
        .lines()
        .filter_map(|l| l.trim().strip_prefix("#[include = \""))
        .map(|rest| rest.split(['"', '/']).next().unwrap())
        .collect();
    assert!(embedded.contains(&"lib"), "{embedded:?}");
    let dockerfile = read("Dockerfile");
    let build_stage = dockerfile
        .split("\nFROM ")
        .find(|stage| stage.contains("cargo build --release"))
        .expect("a stage running the release build");
    let copied: Vec<&str> = build_stage
        .lines()
        .filter(|l| l.starts_with("COPY "))
        .filter_map(|l| l.split_whitespace().next_back())
        .collect();
    for path in embedded {
        let wanted = format!("web/{path}");
        assert!(
            copied.contains(&wanted.as_str()),
            "the image's build stage does not copy {wanted}: {copied:?}"
        );
    }
}

/// Every path the server answers: the API routes from its OpenAPI document (path
/// parameters filled in) and the front end's routes (crates/api/src/web.rs).
async fn served_paths() -> Vec<String> {
    let pool = sqlx::PgPool::connect_lazy("postgres://localhost/unused").unwrap();
    let config = bandmap_config::Config::from_map(&HashMap::new()).unwrap();
    let state = bandmap_api::AppState::new(pool, config);
    let (_, doc) = bandmap_api::server::api_routes(&state);
    let mut paths: Vec<String> = doc
        .paths
        .paths
        .keys()
        .map(|p| {
            p.split('/')
                .map(|seg| if seg.starts_with('{') { "1" } else { seg })
                .collect::<Vec<_>>()
                .join("/")
        })
        .collect();
    assert!(
        paths.iter().any(|p| p == "/readyz") && paths.len() > 20,
        "{paths:?}"
    );
    for web in [
        "/",
        "/api/openapi.json",
        "/admin",
        "/admin/",
        "/admin/app.js",
        "/map/app.js",
        "/lib/dom.js",
        "/vendor/leaflet/leaflet.js",
    ] {
        paths.push(web.to_string());
    }
    paths
}

fn by_name<'a>(level: &'a Directive, name: &'a str, first_arg: &'a str) -> &'a Directive {
    level
        .all(name)
        .find(|d| d.args.first().map(String::as_str) == Some(first_arg))
        .unwrap_or_else(|| panic!("no {name} {first_arg}"))
}

#[tokio::test]
async fn nginx_routes_every_served_path_to_the_replicas() {
    let top = nginx::parse(&read("deploy/nginx.conf"));
    let http = top.iter().find(|d| d.name == "http").expect("http block");
    let upstream = by_name(http, "upstream", "bandmap");
    assert!(upstream.all("server").count() >= 2, "two serve replicas");
    let (doc, _) = compose();
    for (name, _) in services(&doc)
        .into_iter()
        .filter(|(n, _)| n.starts_with("serve-"))
    {
        assert!(
            upstream
                .all("server")
                .any(|s| s.args[0] == format!("{name}:8080")),
            "{name} is not in the upstream"
        );
    }
    // Issue 31: a per-address connection cap and explicit timeouts.
    assert!(http.first("limit_conn").is_some(), "no limit_conn");
    assert!(
        http.first("limit_conn_zone").is_some(),
        "no limit_conn_zone"
    );
    for timeout in [
        "client_header_timeout",
        "client_body_timeout",
        "send_timeout",
        "keepalive_timeout",
        "proxy_connect_timeout",
    ] {
        assert!(http.first(timeout).is_some(), "no {timeout}");
    }
    let tls = http
        .all("server")
        .find(|s| s.all("listen").any(|l| l.args.iter().any(|a| a == "ssl")))
        .expect("a TLS server");
    let plain = http
        .all("server")
        .find(|s| s.all("listen").any(|l| l.args == ["80"]))
        .expect("a port-80 server");
    assert_eq!(
        by_name(plain, "location", "/")
            .first("return")
            .unwrap()
            .args[0],
        "301"
    );
    for path in served_paths().await {
        let location = nginx::location_for(tls, &path).unwrap_or_else(|| panic!("{path}"));
        let pass = location.first("proxy_pass").map(|d| d.args[0].as_str());
        assert_eq!(pass, Some("http://bandmap"), "{path}");
        let levels = [location, tls, http];
        let headers: Vec<String> = nginx::effective(&levels, "proxy_set_header")
            .iter()
            .map(|a| a.join(" "))
            .collect();
        for wanted in [
            "Host $host",
            // Appended, never overwritten: the app reads it from the right (issue 18).
            "X-Forwarded-For $proxy_add_x_forwarded_for",
            "X-Forwarded-Proto $scheme",
        ] {
            assert!(
                headers.iter().any(|h| h == wanted),
                "{path}: no {wanted}: {headers:?}"
            );
        }
        let added = nginx::effective(&levels, "add_header");
        assert!(
            added.iter().any(|a| a[0] == "Strict-Transport-Security"),
            "{path}: no HSTS"
        );
    }
}
