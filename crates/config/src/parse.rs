//! Small typed readers over the variable map; each reports the variable's name on failure.

use crate::ConfigError;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::str::FromStr;
use std::time::Duration;

pub(crate) struct Reader<'a> {
    vars: &'a HashMap<String, String>,
}

fn invalid(var: &'static str, value: &str, reason: &str) -> ConfigError {
    ConfigError::Invalid {
        var,
        value: value.to_string(),
        reason: reason.to_string(),
    }
}

impl<'a> Reader<'a> {
    pub(crate) fn new(vars: &'a HashMap<String, String>) -> Self {
        Self { vars }
    }

    /// The raw value, with surrounding whitespace removed; empty counts as unset.
    pub(crate) fn raw(&self, var: &str) -> Option<&'a str> {
        self.vars
            .get(var)
            .map(|v| v.trim())
            .filter(|v| !v.is_empty())
    }

    pub(crate) fn string(&self, var: &'static str, default: &str) -> String {
        self.raw(var).unwrap_or(default).to_string()
    }

    pub(crate) fn optional(&self, var: &'static str) -> Option<String> {
        self.raw(var).map(str::to_string)
    }

    pub(crate) fn number<T: FromStr>(
        &self,
        var: &'static str,
        default: T,
        reason: &str,
    ) -> Result<T, ConfigError> {
        match self.raw(var) {
            None => Ok(default),
            Some(v) => v.parse().map_err(|_| invalid(var, v, reason)),
        }
    }

    /// A finite, non-negative decimal number of seconds.
    pub(crate) fn seconds(&self, var: &'static str, default: f64) -> Result<Duration, ConfigError> {
        let value: f64 = self.number(var, default, "a number of seconds")?;
        Duration::try_from_secs_f64(value).map_err(|_| {
            invalid(
                var,
                &value.to_string(),
                "a finite, non-negative number of seconds",
            )
        })
    }

    pub(crate) fn millis(&self, var: &'static str, default: u64) -> Result<Duration, ConfigError> {
        self.number(var, default, "a whole number of milliseconds")
            .map(Duration::from_millis)
    }

    pub(crate) fn minutes(&self, var: &'static str, default: u64) -> Result<Duration, ConfigError> {
        let m: u64 = self.number(var, default, "a whole number of minutes (at least 1)")?;
        if m == 0 {
            return Err(invalid(var, "0", "a whole number of minutes (at least 1)"));
        }
        Ok(Duration::from_secs(m * 60))
    }

    pub(crate) fn boolean(&self, var: &'static str, default: bool) -> Result<bool, ConfigError> {
        match self.raw(var).map(str::to_ascii_lowercase).as_deref() {
            None => Ok(default),
            Some("1" | "true" | "on" | "yes") => Ok(true),
            Some("0" | "false" | "off" | "no") => Ok(false),
            Some(other) => Err(invalid(var, other, "one of on, off, true, false, 1, 0")),
        }
    }

    pub(crate) fn url(&self, var: &'static str, default: &str) -> Result<url::Url, ConfigError> {
        let value = self.raw(var).unwrap_or(default);
        let parsed =
            url::Url::parse(value).map_err(|e| invalid(var, value, &format!("a URL ({e})")))?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(invalid(var, value, "an http or https URL"));
        }
        Ok(parsed)
    }

    /// A PostgreSQL connection URL. Checked at start so a typo stops the process at once
    /// instead of after the connection retries; the value is never echoed (it may hold a
    /// password).
    pub(crate) fn postgres_url(
        &self,
        var: &'static str,
        default: &str,
    ) -> Result<String, ConfigError> {
        let value = self.raw(var).unwrap_or(default);
        let parsed = url::Url::parse(value)
            .map_err(|e| invalid(var, "<hidden>", &format!("a postgres:// URL ({e})")))?;
        if !matches!(parsed.scheme(), "postgres" | "postgresql") {
            return Err(invalid(
                var,
                "<hidden>",
                "a postgres:// or postgresql:// URL",
            ));
        }
        Ok(value.to_string())
    }

    pub(crate) fn socket_addr(
        &self,
        var: &'static str,
        default: &str,
    ) -> Result<SocketAddr, ConfigError> {
        let value = self.raw(var).unwrap_or(default);
        value
            .parse()
            .map_err(|_| invalid(var, value, "an address such as 127.0.0.1:8080"))
    }

    pub(crate) fn fraction(&self, var: &'static str, default: f64) -> Result<f64, ConfigError> {
        let v: f64 = self.number(var, default, "a number between 0 and 1")?;
        if !(0.0..=1.0).contains(&v) {
            return Err(invalid(var, &v.to_string(), "a number between 0 and 1"));
        }
        Ok(v)
    }

    pub(crate) fn fail(&self, var: &'static str, value: &str, reason: &str) -> ConfigError {
        invalid(var, value, reason)
    }
}
