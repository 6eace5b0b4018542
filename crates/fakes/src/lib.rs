//! Loopback fakes of the outside services, each speaking the real protocol over HTTP on
//! 127.0.0.1 so that production client code is what the tests exercise.
//! One module per service; each fake records the requests it received.
pub mod geoapify;
pub mod llm;
pub mod solver;
