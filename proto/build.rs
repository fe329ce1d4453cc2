//! Compiles `proto/bgfarm/v1/bgfarm.proto` with protox (a pure-Rust protobuf
//! compiler), so building needs no system `protoc`.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let file = "proto/bgfarm/v1/bgfarm.proto";
    println!("cargo:rerun-if-changed={file}");
    let fds = protox::compile([file], ["proto"])?;
    tonic_prost_build::configure().compile_fds(fds)?;
    Ok(())
}
