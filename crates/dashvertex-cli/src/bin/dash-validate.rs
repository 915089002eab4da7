//! `dash-validate`: checks skinning data in DashVertex JSON, DMX, raw and glTF/GLB files.
//!
//! Exit status: 0 when every file is valid, 1 when any is invalid, 2 on a usage or I/O
//! error.

fn main() -> std::process::ExitCode {
    dashvertex_cli::validate::main()
}
