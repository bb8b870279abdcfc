//! The support layer: the edges and helpers every stage may use, importing nothing above
//! it. [`github`] is the GitHub REST client; [`log`] the Actions log and workflow-command
//! writer; [`secrets`] the forms a secret is masked in; [`sanitize`] and [`text`] pure text
//! helpers; [`tls`] the one TLS configuration of both HTTP clients; [`duration`] the one duration
//! parser of the inputs.

pub mod duration;
pub mod github;
pub mod log;
pub mod sanitize;
pub mod secrets;
pub mod text;
pub mod tls;
