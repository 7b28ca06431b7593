//! `s3://bucket/prefix`: the S3 store and its rules — the endpoint (plain
//! `http` only on loopback, no user info), the credentials (named when
//! missing, instance metadata only on request), the bucket name, and the
//! bounded HTTP client (the rules are documented on [`crate::store`]).

use std::sync::Arc;
use std::time::Duration;

use object_store::aws::{AmazonS3Builder, AmazonS3ConfigKey};
use object_store::path::Path;
use object_store::{BackoffConfig, ClientConfigKey, RetryConfig};

use super::{Env, StoreLocation, StoreOptions};
use crate::error::{Error, Result};

/// Opens `s3://{rest}` with `options`, reading `AWS_*` settings from `env`;
/// `url_err` wraps a reason into the caller's redacted URL error.
///
/// # Errors
/// [`Error::Url`] for a query or fragment, a missing or invalid bucket, a
/// refused endpoint, missing credentials, or a store that cannot be built.
pub(super) fn open(
    rest: &str,
    options: &StoreOptions,
    env: &Env,
    url_err: &dyn Fn(String) -> Error,
) -> Result<StoreLocation> {
    if rest.contains(['?', '#']) {
        return Err(url_err(
            "an s3:// URL takes no query string or fragment (s3://bucket/prefix)".into(),
        ));
    }
    let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
    if bucket.is_empty() {
        return Err(url_err("no bucket name".into()));
    }
    if !valid_bucket(bucket) {
        return Err(Error::Url {
            url: "s3://…".into(),
            reason: "the bucket name is not valid (1 to 255 letters, digits, '.', '-', '_')".into(),
        });
    }
    let mut builder = AmazonS3Builder::new();
    for (k, v) in env {
        if let Ok(key) = k.to_ascii_lowercase().parse::<AmazonS3ConfigKey>() {
            builder = builder.with_config(key, v);
        }
    }
    let mut builder = builder
        .with_bucket_name(bucket)
        .with_virtual_hosted_style_request(false);
    let mut http = false;
    let mut loopback_port = None;
    if let Some((var, raw)) = endpoint_from_env(env) {
        let (endpoint, plain) = check_endpoint(var, &raw, env).map_err(&url_err)?;
        http = plain;
        loopback_port = url::Url::parse(&endpoint)
            .ok()
            .filter(is_loopback_host)
            .and_then(|u| u.port_or_known_default());
        builder = builder
            .with_endpoint(&endpoint)
            .with_config(AmazonS3ConfigKey::S3Endpoint, &endpoint);
    }
    let imds = options.instance_metadata || truthy(env.get("WARP_S3_INSTANCE_METADATA").cloned());
    check_credentials(&builder, imds, env).map_err(&url_err)?;
    if !env.contains_key("AWS_REGION") && !env.contains_key("AWS_DEFAULT_REGION") {
        builder = builder.with_region("us-east-1");
    }
    let dur = |d: Duration| humantime::format_duration(d).to_string();
    let client = |k: ClientConfigKey| AmazonS3ConfigKey::Client(k);
    builder = builder
        .with_config(client(ClientConfigKey::AllowHttp), http.to_string())
        .with_config(
            client(ClientConfigKey::ConnectTimeout),
            dur(options.connect_timeout),
        )
        .with_config(
            client(ClientConfigKey::ReadTimeout),
            dur(options.read_timeout),
        )
        .with_config(
            client(ClientConfigKey::Timeout),
            dur(options.request_timeout),
        )
        .with_retry(RetryConfig {
            backoff: BackoffConfig::default(),
            max_retries: options.max_retries,
            retry_timeout: options.retry_timeout,
        });
    let store = builder
        .build()
        .map_err(|e| url_err(format!("cannot configure S3: {}", crate::error::chain(&e))))?;
    Ok(StoreLocation {
        store: Arc::new(store),
        prefix: Path::from(prefix.trim_matches('/')),
        display: format!("s3://{rest}"),
        loopback_port,
    })
}

/// Whether a parsed URL's host is loopback: `127.0.0.0/8`, `::1` or
/// `localhost`.
fn is_loopback_host(url: &url::Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

/// Checks the S3 endpoint in variable `var` (see the module docs) and
/// returns it normalized (lowercase scheme and host, no trailing `/`) and
/// whether it is plain `http`. The reason of a refusal never contains user
/// info.
pub(super) fn check_endpoint(
    var: &str,
    raw: &str,
    env: &Env,
) -> std::result::Result<(String, bool), String> {
    let url = url::Url::parse(raw.trim()).map_err(|e| format!("{var} is not a URL ({e})"))?;
    if !url.username().is_empty() || url.password().is_some() {
        return Err(format!(
            "{var} contains user info (user:password@), which is refused in endpoints; set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY instead"
        ));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(format!(
            "{var} has a query string or fragment; an endpoint is scheme://host[:port][/path]"
        ));
    }
    let http = match url.scheme() {
        "https" => false,
        "http" => true,
        other => {
            return Err(format!(
                "{var} has scheme {:?}; use https (or http for a loopback host)",
                crate::error::bound(other, 16)
            ));
        }
    };
    if url.host().is_none() {
        return Err(format!("{var} has no host"));
    }
    let shown = url.as_str().trim_end_matches('/').to_string();
    if http && !is_loopback_host(&url) {
        let allow = truthy(env.get("AWS_ALLOW_HTTP").cloned());
        return Err(format!(
            "{var} {shown} uses plain http to a non-loopback host; only 127.0.0.0/8, ::1 and localhost may (use https){}",
            if allow {
                "; AWS_ALLOW_HTTP=true does not lift this: signed requests and index data would cross the network unencrypted"
            } else {
                ""
            }
        ));
    }
    Ok((shown, http))
}

/// The S3 endpoint variable in effect and its value.
fn endpoint_from_env(env: &Env) -> Option<(&'static str, String)> {
    ["AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL", "AWS_ENDPOINT"]
        .into_iter()
        .find_map(|k| {
            env.get(k)
                .filter(|v| !v.trim().is_empty())
                .map(|v| (k, v.clone()))
        })
}

fn truthy(v: Option<String>) -> bool {
    v.is_some_and(|v| {
        matches!(
            v.trim().to_ascii_lowercase().as_str(),
            "true" | "1" | "yes" | "on"
        )
    })
}

/// Refuses an S3 builder without credentials (unless instance metadata is
/// allowed), naming the variables to set.
fn check_credentials(
    b: &AmazonS3Builder,
    instance_metadata: bool,
    env: &Env,
) -> std::result::Result<(), String> {
    let has = |k: AmazonS3ConfigKey| b.get_config_value(&k).is_some_and(|v| !v.is_empty());
    let key = has(AmazonS3ConfigKey::AccessKeyId);
    let secret = has(AmazonS3ConfigKey::SecretAccessKey);
    match (key, secret) {
        (true, true) => return Ok(()),
        (true, false) => {
            return Err("AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not".into());
        }
        (false, true) => {
            return Err("AWS_SECRET_ACCESS_KEY is set but AWS_ACCESS_KEY_ID is not".into());
        }
        (false, false) => {}
    }
    let other = truthy(b.get_config_value(&AmazonS3ConfigKey::SkipSignature))
        || (has(AmazonS3ConfigKey::WebIdentityTokenFile) && has(AmazonS3ConfigKey::RoleArn))
        || has(AmazonS3ConfigKey::ContainerCredentialsRelativeUri)
        || (has(AmazonS3ConfigKey::ContainerCredentialsFullUri)
            && has(AmazonS3ConfigKey::ContainerAuthorizationTokenFile));
    if other || instance_metadata {
        return Ok(());
    }
    let region = if !env.contains_key("AWS_REGION") && !env.contains_key("AWS_DEFAULT_REGION") {
        " (AWS_REGION is not set either; us-east-1 is assumed)"
    } else {
        ""
    };
    Err(format!(
        "no S3 credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for temporary keys), or AWS_WEB_IDENTITY_TOKEN_FILE with AWS_ROLE_ARN, or AWS_SKIP_SIGNATURE=true for a public bucket; on EC2, WARP_S3_INSTANCE_METADATA=true uses the instance metadata service{region}"
    ))
}

/// Whether a name is usable as a bucket: 1–255 of `A-Z a-z 0-9 . - _`.
fn valid_bucket(b: &str) -> bool {
    !b.is_empty()
        && b.len() <= 255
        && b.bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'-' | b'_'))
}
