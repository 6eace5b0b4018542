//! Small typed readers over the variable map. Each takes a variable's declaration
//! ([`Variable`]): an unset variable reads as its declared default, and a failure names it.

use crate::ConfigError;
use crate::vars::Variable;
use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap};
use std::net::SocketAddr;
use std::str::FromStr;
use std::time::Duration;

pub(crate) struct Reader<'a> {
    vars: &'a HashMap<String, String>,
    /// Names of the variables read so far (a test checks every declared one is read).
    read: RefCell<BTreeSet<&'static str>>,
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
        Self {
            vars,
            read: RefCell::new(BTreeSet::new()),
        }
    }

    /// Names of the variables read so far.
    #[cfg(test)]
    pub(crate) fn names_read(&self) -> BTreeSet<&'static str> {
        self.read.borrow().clone()
    }

    /// The raw value, with surrounding whitespace removed; empty counts as unset.
    pub(crate) fn raw(&self, var: Variable) -> Option<&'a str> {
        self.read.borrow_mut().insert(var.name);
        self.vars
            .get(var.name)
            .map(|v| v.trim())
            .filter(|v| !v.is_empty())
    }

    /// The value, else the declared default.
    fn value(&self, var: Variable) -> &'a str {
        self.raw(var).unwrap_or(var.default)
    }

    pub(crate) fn string(&self, var: Variable) -> String {
        self.value(var).to_string()
    }

    pub(crate) fn optional(&self, var: Variable) -> Option<String> {
        self.raw(var).map(str::to_string)
    }

    pub(crate) fn number<T: FromStr>(&self, var: Variable, reason: &str) -> Result<T, ConfigError> {
        let v = self.value(var);
        v.parse().map_err(|_| invalid(var.name, v, reason))
    }

    /// A finite, non-negative decimal number of seconds.
    pub(crate) fn seconds(&self, var: Variable) -> Result<Duration, ConfigError> {
        let value: f64 = self.number(var, "a number of seconds")?;
        Duration::try_from_secs_f64(value).map_err(|_| {
            invalid(
                var.name,
                &value.to_string(),
                "a finite, non-negative number of seconds",
            )
        })
    }

    pub(crate) fn millis(&self, var: Variable) -> Result<Duration, ConfigError> {
        self.number(var, "a whole number of milliseconds")
            .map(Duration::from_millis)
    }

    pub(crate) fn minutes(&self, var: Variable) -> Result<Duration, ConfigError> {
        let m: u64 = self.number(var, "a whole number of minutes (at least 1)")?;
        if m == 0 {
            return Err(invalid(
                var.name,
                "0",
                "a whole number of minutes (at least 1)",
            ));
        }
        Ok(Duration::from_secs(m * 60))
    }

    pub(crate) fn boolean(&self, var: Variable) -> Result<bool, ConfigError> {
        match self.value(var).to_ascii_lowercase().as_str() {
            "1" | "true" | "on" | "yes" => Ok(true),
            "0" | "false" | "off" | "no" => Ok(false),
            other => Err(invalid(
                var.name,
                other,
                "one of on, off, true, false, 1, 0",
            )),
        }
    }

    pub(crate) fn url(&self, var: Variable) -> Result<url::Url, ConfigError> {
        let var_name = var.name;
        let value = self.value(var);
        let var = var_name;
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
    pub(crate) fn postgres_url(&self, var: Variable) -> Result<String, ConfigError> {
        let value = self.value(var);
        let var = var.name;
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

    pub(crate) fn socket_addr(&self, var: Variable) -> Result<SocketAddr, ConfigError> {
        let value = self.value(var);
        value
            .parse()
            .map_err(|_| invalid(var.name, value, "an address such as 127.0.0.1:8080"))
    }

    pub(crate) fn fraction(&self, var: Variable) -> Result<f64, ConfigError> {
        let v: f64 = self.number(var, "a number between 0 and 1")?;
        if !(0.0..=1.0).contains(&v) {
            return Err(invalid(
                var.name,
                &v.to_string(),
                "a number between 0 and 1",
            ));
        }
        Ok(v)
    }

    pub(crate) fn fail(&self, var: Variable, value: &str, reason: &str) -> ConfigError {
        invalid(var.name, value, reason)
    }
}
