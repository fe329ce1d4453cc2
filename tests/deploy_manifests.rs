//! The manifests under deploy/ (Dockerfile, docker-compose.yml, k8s/) parse and agree
//! with each other and with the binary: the coordinator listens on the port its
//! Service targets, workers point at that Service, token paths are where the Secret
//! is mounted, and every `--flag` they pass is one `bgfarm` accepts.

use serde::Deserialize;
use serde_yaml::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_bgfarm");

fn deploy_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy")
}

/// Every .yml / .yaml file under `dir`, sorted.
fn yaml_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("read deploy dir") {
        let path = entry.expect("dir entry").path();
        if path.is_dir() {
            out.extend(yaml_files(&path));
        } else if matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("yml" | "yaml")
        ) {
            out.push(path);
        }
    }
    out.sort();
    out
}

/// The documents of one YAML file (`---` separated), empty ones left out.
fn documents(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).expect("read manifest");
    serde_yaml::Deserializer::from_str(&text)
        .map(|doc| Value::deserialize(doc).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
        .filter(|v| !v.is_null())
        .collect()
}

/// All Kubernetes documents under deploy/k8s.
fn k8s_docs() -> Vec<Value> {
    yaml_files(&deploy_dir().join("k8s"))
        .iter()
        .flat_map(|p| documents(p))
        .collect()
}

fn s(v: &Value) -> &str {
    v.as_str()
        .unwrap_or_else(|| panic!("expected a string, got {v:?}"))
}

fn kind<'a>(docs: &'a [Value], kind: &str) -> Vec<&'a Value> {
    docs.iter().filter(|d| d["kind"] == kind).collect()
}

fn one<'a>(docs: &'a [Value], k: &str) -> &'a Value {
    let found = kind(docs, k);
    assert_eq!(found.len(), 1, "expected exactly one {k}");
    found[0]
}

fn strings(v: &Value) -> Vec<String> {
    v.as_sequence()
        .unwrap_or_else(|| panic!("expected a list, got {v:?}"))
        .iter()
        .map(|x| match x {
            Value::String(t) => t.clone(),
            Value::Number(n) => n.to_string(),
            other => panic!("unexpected argument {other:?}"),
        })
        .collect()
}

/// The value after `flag` in `args` (`--flag VALUE` or `--flag=VALUE`).
fn flag(args: &[String], name: &str) -> Option<String> {
    let eq = format!("{name}=");
    args.iter().enumerate().find_map(|(i, a)| {
        if a == name {
            args.get(i + 1).cloned()
        } else {
            a.strip_prefix(&eq).map(str::to_string)
        }
    })
}

fn port_of(addr: &str) -> u16 {
    addr.rsplit(':')
        .next()
        .and_then(|p| p.trim_end_matches('/').parse().ok())
        .unwrap_or_else(|| panic!("no port in {addr}"))
}

/// `http://HOST:PORT` -> (HOST, PORT).
fn host_port(url: &str) -> (String, u16) {
    let rest = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"))
        .unwrap_or_else(|| panic!("{url} is not an http(s) URL"));
    let rest = rest.trim_end_matches('/');
    let (host, port) = rest
        .rsplit_once(':')
        .unwrap_or_else(|| panic!("{url} has no port"));
    (host.to_string(), port.parse().expect("port number"))
}

/// The single container of a workload's pod template.
fn container(workload: &Value) -> &Value {
    let containers = workload["spec"]["template"]["spec"]["containers"]
        .as_sequence()
        .expect("containers");
    assert_eq!(containers.len(), 1, "one container per pod");
    &containers[0]
}

/// A container port given by number or by name, as a number.
fn resolve_port(container: &Value, port: &Value) -> u16 {
    match port {
        Value::Number(n) => n.as_u64().expect("port") as u16,
        Value::String(name) => container["ports"]
            .as_sequence()
            .expect("container ports")
            .iter()
            .find(|p| p["name"] == name.as_str())
            .and_then(|p| p["containerPort"].as_u64())
            .unwrap_or_else(|| panic!("no container port named {name}"))
            as u16,
        other => panic!("bad port {other:?}"),
    }
}

fn labels_match(selector: &Value, labels: &Value) -> bool {
    let sel = selector.as_mapping().expect("selector");
    !sel.is_empty() && sel.iter().all(|(k, v)| &labels[k] == v)
}

/// Checks that `path` (a token file) lies in a volume of `workload` that mounts
/// `secret`, under one of the secret's keys (and of the volume's items, if any).
fn check_token_path(workload: &Value, path: &str, secret: &Value) {
    let c = container(workload);
    let (dir, file) = path.rsplit_once('/').expect("absolute token path");
    let mount = c["volumeMounts"]
        .as_sequence()
        .expect("volumeMounts")
        .iter()
        .find(|m| m["mountPath"] == dir)
        .unwrap_or_else(|| panic!("{path}: nothing is mounted at {dir}"));
    let volume = workload["spec"]["template"]["spec"]["volumes"]
        .as_sequence()
        .expect("volumes")
        .iter()
        .find(|v| v["name"] == mount["name"])
        .expect("the mounted volume");
    assert_eq!(
        volume["secret"]["secretName"], secret["metadata"]["name"],
        "{path} is not from the tokens Secret"
    );
    let keys: BTreeSet<&str> = secret["stringData"]
        .as_mapping()
        .expect("stringData")
        .keys()
        .map(s)
        .collect();
    match volume["secret"]["items"].as_sequence() {
        Some(items) => assert!(
            items
                .iter()
                .any(|i| i["path"] == file && keys.contains(s(&i["key"]))),
            "{path}: no secret item puts a key at {file}"
        ),
        None => assert!(keys.contains(file), "{path}: the Secret has no key {file}"),
    }
}

#[test]
fn every_yaml_file_parses_and_k8s_has_the_expected_kinds() {
    let files = yaml_files(&deploy_dir());
    assert!(files.len() >= 2, "deploy/ holds compose and k8s manifests");
    for f in &files {
        assert!(!documents(f).is_empty(), "{} is empty", f.display());
    }
    let docs = k8s_docs();
    for d in &docs {
        assert!(
            d["apiVersion"].is_string() && d["kind"].is_string(),
            "{d:?}"
        );
        if d["kind"] != "Kustomization" {
            assert!(d["metadata"]["name"].is_string(), "{d:?}");
        }
    }
    let kinds: BTreeSet<&str> = docs.iter().map(|d| s(&d["kind"])).collect();
    for k in [
        "Secret",
        "Service",
        "StatefulSet",
        "Deployment",
        "HorizontalPodAutoscaler",
        "Kustomization",
    ] {
        assert!(kinds.contains(k), "no {k} under deploy/k8s");
    }
    // The kustomization lists every other manifest.
    let k8s = deploy_dir().join("k8s");
    let listed: BTreeSet<String> = strings(&one(&docs, "Kustomization")["resources"])
        .into_iter()
        .collect();
    for f in yaml_files(&k8s) {
        let name = f.strip_prefix(&k8s).unwrap().to_string_lossy().to_string();
        if name != "kustomization.yaml" {
            assert!(listed.contains(&name), "kustomization.yaml misses {name}");
        }
    }
    for l in &listed {
        assert!(k8s.join(l).is_file(), "kustomization lists missing {l}");
    }
}

#[test]
fn k8s_coordinator_workers_secret_and_autoscaler_agree() {
    let docs = k8s_docs();
    let sts = one(&docs, "StatefulSet");
    let deploy = one(&docs, "Deployment");
    let secret = one(&docs, "Secret");
    let hpa = one(&docs, "HorizontalPodAutoscaler");

    // Coordinator: `serve --listen` on the named container port.
    assert_eq!(sts["spec"]["replicas"], 1, "one coordinator owns the store");
    let coord = container(sts);
    let args = strings(&coord["args"]);
    assert_eq!(args[0], "serve");
    let listen_port = port_of(&flag(&args, "--listen").expect("--listen"));
    let grpc = resolve_port(coord, &Value::from("grpc"));
    assert_eq!(grpc, listen_port, "containerPort grpc = --listen port");

    // The Service the workers use selects the coordinator and targets that port.
    let pod_labels = &sts["spec"]["template"]["metadata"]["labels"];
    let services = kind(&docs, "Service");
    let svc = *services
        .iter()
        .find(|v| v["spec"]["clusterIP"] != "None")
        .expect("a ClusterIP Service");
    assert!(labels_match(&svc["spec"]["selector"], pod_labels));
    let svc_port = &svc["spec"]["ports"][0];
    assert_eq!(resolve_port(coord, &svc_port["targetPort"]), listen_port);
    let svc_name = s(&svc["metadata"]["name"]);
    let svc_port = svc_port["port"].as_u64().expect("service port") as u16;
    // The StatefulSet's governing Service exists and is headless.
    let governing = services
        .iter()
        .find(|v| v["metadata"]["name"] == sts["spec"]["serviceName"])
        .expect("the StatefulSet's serviceName");
    assert_eq!(governing["spec"]["clusterIP"], "None");
    assert!(labels_match(
        &sts["spec"]["selector"]["matchLabels"],
        pod_labels
    ));

    // --data lies on the volumeClaimTemplate's volume.
    let data = flag(&args, "--data").expect("--data");
    let claim = &sts["spec"]["volumeClaimTemplates"][0];
    assert!(claim["spec"]["resources"]["requests"]["storage"].is_string());
    let data_mount = coord["volumeMounts"]
        .as_sequence()
        .expect("volumeMounts")
        .iter()
        .find(|m| m["name"] == claim["metadata"]["name"])
        .expect("the claim is mounted");
    assert!(
        Path::new(&data).starts_with(s(&data_mount["mountPath"])),
        "--data {data} is not on the persistent volume"
    );

    // Tokens come from the Secret, and its values are marked as placeholders.
    for f in ["--client-token-file", "--worker-token-file"] {
        check_token_path(sts, &flag(&args, f).expect(f), secret);
    }
    for (_, v) in secret["stringData"].as_mapping().expect("stringData") {
        assert!(
            s(v).contains("CHANGE-ME"),
            "placeholder tokens say CHANGE-ME"
        );
    }

    // Probes: GET /healthz on the --metrics-listen port when it is given, else TCP
    // on the gRPC port.
    let metrics_port = flag(&args, "--metrics-listen").map(|a| port_of(&a));
    for p in ["readinessProbe", "livenessProbe"] {
        match metrics_port {
            Some(port) => {
                let get = &coord[p]["httpGet"];
                assert_eq!(get["path"], "/healthz", "{p}");
                assert_eq!(resolve_port(coord, &get["port"]), port, "{p}");
            }
            None => assert_eq!(
                resolve_port(coord, &coord[p]["tcpSocket"]["port"]),
                listen_port,
                "{p}"
            ),
        }
    }
    if let Some(port) = metrics_port {
        let annotations = &sts["spec"]["template"]["metadata"]["annotations"];
        if let Some(scrape) = annotations["prometheus.io/port"].as_str() {
            assert_eq!(scrape, port.to_string(), "the scrape annotation's port");
        }
    }

    // Workers: `work --coordinator http://SERVICE:PORT --token-file <secret>`.
    let worker = container(deploy);
    let wargs = strings(&worker["args"]);
    assert_eq!(wargs[0], "work");
    let (host, port) = host_port(&flag(&wargs, "--coordinator").expect("--coordinator"));
    assert!(
        host == svc_name || host.starts_with(&format!("{svc_name}.")),
        "workers point at {host}, the Service is {svc_name}"
    );
    assert_eq!(port, svc_port, "workers use the Service port");
    check_token_path(
        deploy,
        &flag(&wargs, "--token-file").expect("--token-file"),
        secret,
    );
    assert!(labels_match(
        &deploy["spec"]["selector"]["matchLabels"],
        &deploy["spec"]["template"]["metadata"]["labels"]
    ));

    // Resources: requests everywhere, a CPU limit on workers for the autoscaler,
    // and no more trial threads than CPUs.
    for c in [coord, worker] {
        let req = &c["resources"]["requests"];
        assert!(req["cpu"].is_string() && req["memory"].is_string(), "{c:?}");
        assert!(c["resources"]["limits"]["memory"].is_string(), "{c:?}");
    }
    let cpu_limit = s(&worker["resources"]["limits"]["cpu"]);
    if let (Some(t), Ok(cpus)) = (flag(&wargs, "--threads"), cpu_limit.parse::<u32>()) {
        assert!(t.parse::<u32>().expect("--threads") <= cpus);
    }

    // Non-root pods, as the image's user.
    for w in [sts, deploy] {
        let sc = &w["spec"]["template"]["spec"]["securityContext"];
        assert_eq!(sc["runAsNonRoot"], true);
        assert_eq!(sc["runAsUser"], 10001);
    }

    // The autoscaler scales the worker Deployment on CPU.
    assert_eq!(hpa["apiVersion"], "autoscaling/v2");
    let target = &hpa["spec"]["scaleTargetRef"];
    assert_eq!(target["kind"], "Deployment");
    assert_eq!(target["name"], deploy["metadata"]["name"]);
    assert!(hpa["spec"]["minReplicas"].as_u64().expect("minReplicas") >= 1);
    assert!(hpa["spec"]["maxReplicas"].as_u64() >= hpa["spec"]["minReplicas"].as_u64());
    let metrics = hpa["spec"]["metrics"].as_sequence().expect("metrics");
    assert!(metrics
        .iter()
        .any(|m| m["type"] == "Resource" && m["resource"]["name"] == "cpu"));
}

#[test]
fn compose_coordinator_and_workers_agree() {
    let docs = documents(&deploy_dir().join("docker-compose.yml"));
    let compose = &docs[0];
    let coord = &compose["services"]["coordinator"];
    let worker = &compose["services"]["worker"];
    let args = strings(&coord["command"]);
    assert_eq!(args[0], "serve");
    let listen = flag(&args, "--listen").expect("--listen");
    assert!(listen.starts_with("0.0.0.0:"), "listen on every interface");
    let port = port_of(&listen);
    assert!(
        strings(&coord["ports"])
            .iter()
            .any(|p| p.ends_with(&format!(":{port}"))),
        "the coordinator publishes {port}"
    );

    // The healthcheck asks /healthz on the --metrics-listen port when it is given.
    let check = strings(&coord["healthcheck"]["test"]).join(" ");
    match flag(&args, "--metrics-listen") {
        Some(m) => {
            let port = port_of(&m);
            assert!(m.starts_with("0.0.0.0:"), "metrics on every interface");
            assert!(
                check.contains(&format!("/dev/tcp/127.0.0.1/{port}")) && check.contains("/healthz"),
                "healthcheck {check} does not ask /healthz on {port}"
            );
        }
        None => assert!(
            check.contains(&format!("/dev/tcp/127.0.0.1/{port}")),
            "{check}"
        ),
    }

    // --data is on a named volume.
    let data = flag(&args, "--data").expect("--data");
    let on_volume = strings(&coord["volumes"]).iter().any(|v| {
        let (name, path) = v.split_once(':').expect("volume NAME:PATH");
        compose["volumes"].get(name).is_some() && Path::new(&data).starts_with(path)
    });
    assert!(on_volume, "--data {data} is not on a named volume");

    let wargs = strings(&worker["command"]);
    assert_eq!(wargs[0], "work");
    let (host, wport) = host_port(&flag(&wargs, "--coordinator").expect("--coordinator"));
    assert_eq!(host, "coordinator");
    assert_eq!(wport, port);
    assert!(
        worker["deploy"]["replicas"].is_null() && worker["container_name"].is_null(),
        "workers stay scalable with --scale"
    );

    // Token files are Docker secrets the service is given.
    for (service, a, flags) in [
        (
            coord,
            &args,
            &["--client-token-file", "--worker-token-file"][..],
        ),
        (worker, &wargs, &["--token-file"][..]),
    ] {
        let given = strings(&service["secrets"]);
        for f in flags {
            let path = flag(a, f).expect("token flag");
            let name = path.strip_prefix("/run/secrets/").expect("a Docker secret");
            assert!(given.iter().any(|g| g == name), "{name} not given");
            assert!(
                compose["secrets"][name]["file"].is_string(),
                "{name} undefined"
            );
        }
    }
}

/// Every argument list the manifests pass to `bgfarm`.
fn all_command_lines() -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for d in k8s_docs() {
        if let Some(cs) = d["spec"]["template"]["spec"]["containers"].as_sequence() {
            out.extend(cs.iter().map(|c| strings(&c["args"])));
        }
    }
    let compose = &documents(&deploy_dir().join("docker-compose.yml"))[0];
    for (_, svc) in compose["services"].as_mapping().expect("services") {
        out.push(strings(&svc["command"]));
    }
    out
}

#[test]
fn every_flag_in_the_manifests_is_accepted_by_the_binary() {
    let lines = all_command_lines();
    assert!(lines.len() >= 4);
    for args in lines {
        let help = Command::new(BIN)
            .args([args[0].as_str(), "--help"])
            .output()
            .expect("run bgfarm");
        assert!(help.status.success(), "bgfarm {} --help", args[0]);
        let help = String::from_utf8(help.stdout).expect("utf-8 help");
        for a in args.iter().filter(|a| a.starts_with("--")) {
            let name = a.split('=').next().unwrap();
            assert!(
                help.split(|c: char| !(c.is_alphanumeric() || c == '-'))
                    .any(|w| w == name),
                "bgfarm {} has no flag {name}",
                args[0]
            );
        }
        // clap parses (and validates) the whole line before the final --help.
        let parsed = Command::new(BIN)
            .args(&args)
            .arg("--help")
            .output()
            .expect("run bgfarm");
        assert!(
            parsed.status.success(),
            "bgfarm {args:?} does not parse: {}",
            String::from_utf8_lossy(&parsed.stderr)
        );
    }
}

#[test]
fn dockerfile_is_multi_stage_non_root_and_exposes_the_coordinator_port() {
    let text = std::fs::read_to_string(deploy_dir().join("Dockerfile")).expect("Dockerfile");
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    let froms: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| l.starts_with("FROM "))
        .collect();
    assert!(froms.len() >= 2, "a multi-stage build");
    let stage = froms[0]
        .split_whitespace()
        .last()
        .expect("the build stage's name");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with(&format!("COPY --from={stage} "))),
        "the runtime copies the binary from the build stage"
    );
    assert!(text.contains("cargo build --release --locked"));
    let user = lines
        .iter()
        .rev()
        .find_map(|l| l.strip_prefix("USER "))
        .expect("a USER");
    let user = user.split(':').next().unwrap().trim();
    assert!(user != "root" && user != "0", "USER {user} is root");
    assert_eq!(user, "10001", "the uid the k8s manifests run as");
    assert!(lines.contains(&r#"ENTRYPOINT ["bgfarm"]"#));
    let compose = &documents(&deploy_dir().join("docker-compose.yml"))[0];
    let listen = flag(
        &strings(&compose["services"]["coordinator"]["command"]),
        "--listen",
    )
    .expect("--listen");
    assert!(lines.contains(&format!("EXPOSE {}", port_of(&listen)).as_str()));
}
