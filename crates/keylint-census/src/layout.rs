//! Which master owns which slot: from `CLUSTER NODES` or `CLUSTER SHARDS` output, or
//! the even split `redis-cli --cluster create` makes for N masters.

use keyslot::SLOTS;

/// A master and the slots it owns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    /// How the node is named in reports: its `ip:port`, or `node N` for a projection.
    pub name: String,
    /// Inclusive slot ranges, ascending.
    pub ranges: Vec<(u16, u16)>,
}

/// Slot ownership of a cluster.
#[derive(Debug, Clone)]
pub struct Layout {
    /// The masters, ordered by their first slot.
    pub nodes: Vec<Node>,
    /// True when the layout is the even split of [`Layout::even`], not a real cluster's.
    pub projected: bool,
    owner: Vec<u16>,
}

/// No master owns the slot.
pub const UNOWNED: u16 = u16::MAX;

impl Layout {
    fn from_nodes(mut nodes: Vec<Node>, projected: bool) -> Result<Layout, String> {
        nodes.retain(|n| !n.ranges.is_empty());
        if nodes.is_empty() {
            return Err("no master owns any slot".into());
        }
        for n in &mut nodes {
            n.ranges.sort_unstable();
        }
        nodes.sort_by_key(|n| n.ranges[0].0);
        let mut owner = vec![UNOWNED; usize::from(SLOTS)];
        for (i, n) in nodes.iter().enumerate() {
            for &(lo, hi) in &n.ranges {
                for s in lo..=hi {
                    owner[usize::from(s)] = i as u16;
                }
            }
        }
        Ok(Layout {
            nodes,
            projected,
            owner,
        })
    }

    /// The even split over `n` masters, computed like `redis-cli --cluster create`
    /// (3 masters: `0-5460`, `5461-10922`, `10923-16383`).
    pub fn even(n: u16) -> Result<Layout, String> {
        if n == 0 || n > SLOTS {
            return Err(format!("--masters must be between 1 and {SLOTS}"));
        }
        let per = f64::from(SLOTS) / f64::from(n);
        let mut first = 0i64;
        let mut cursor = 0f64;
        let mut nodes = Vec::new();
        for i in 0..n {
            let mut last = (cursor + per - 1.0).round() as i64;
            if last > i64::from(SLOTS) - 1 || i == n - 1 {
                last = i64::from(SLOTS) - 1;
            }
            last = last.max(first);
            nodes.push(Node {
                name: format!("node {}", i + 1),
                ranges: vec![(first as u16, last as u16)],
            });
            first = last + 1;
            cursor += per;
        }
        Layout::from_nodes(nodes, true)
    }

    /// Parses `CLUSTER NODES` or `CLUSTER SHARDS` output (as `redis-cli` prints it, in
    /// either its raw or its quoted form).
    pub fn parse(text: &str) -> Result<Layout, String> {
        let looks_like_shards = text.lines().any(|l| strip_cli(l) == "slots")
            && text.lines().any(|l| strip_cli(l) == "nodes");
        if looks_like_shards {
            parse_shards(text)
        } else {
            parse_nodes(text)
        }
    }

    /// The index of the node owning `slot`, or [`UNOWNED`].
    pub fn owner(&self, slot: u16) -> u16 {
        self.owner[usize::from(slot)]
    }

    /// Number of slots no master owns.
    pub fn unowned(&self) -> usize {
        self.owner.iter().filter(|&&o| o == UNOWNED).count()
    }
}

fn parse_nodes(text: &str) -> Result<Layout, String> {
    let mut nodes = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split_ascii_whitespace().collect();
        if fields.len() < 8 {
            return Err(format!(
                "line {}: not a `CLUSTER NODES` line (expected at least 8 fields)",
                n + 1
            ));
        }
        let flags: Vec<&str> = fields[2].split(',').collect();
        if !flags.contains(&"master") {
            continue;
        }
        // `ip:port@cport[,hostname]`
        let addr = fields[1].split('@').next().unwrap_or(fields[1]).to_string();
        let mut ranges = Vec::new();
        for f in &fields[8..] {
            if f.starts_with('[') {
                continue; // a slot being migrated or imported: still owned as listed
            }
            let (lo, hi) = match f.split_once('-') {
                Some((a, b)) => (a, b),
                None => (*f, *f),
            };
            let lo: u16 = lo
                .parse()
                .map_err(|_| format!("line {}: bad slot range `{f}`", n + 1))?;
            let hi: u16 = hi
                .parse()
                .map_err(|_| format!("line {}: bad slot range `{f}`", n + 1))?;
            if lo > hi || hi >= SLOTS {
                return Err(format!("line {}: bad slot range `{f}`", n + 1));
            }
            ranges.push((lo, hi));
        }
        nodes.push(Node { name: addr, ranges });
    }
    Layout::from_nodes(nodes, false)
}

/// Strips what `redis-cli` adds around a value in its quoted form: `1) `, `(integer) `
/// and the quotes.
fn strip_cli(line: &str) -> &str {
    let mut s = line.trim();
    loop {
        let digits = s.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && s[digits..].starts_with(')') {
            s = s[digits + 1..].trim_start();
        } else {
            break;
        }
    }
    if let Some(rest) = s.strip_prefix("(integer) ") {
        s = rest;
    }
    if s.len() >= 2 && s.starts_with('"') && s.ends_with('"') {
        s = &s[1..s.len() - 1];
    }
    s
}

fn parse_shards(text: &str) -> Result<Layout, String> {
    let tokens: Vec<&str> = text
        .lines()
        .map(strip_cli)
        .filter(|t| !t.is_empty())
        .collect();
    let mut nodes = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        if tokens[i] != "slots" {
            i += 1;
            continue;
        }
        i += 1;
        let mut ranges = Vec::new();
        while i + 1 < tokens.len() {
            let (Ok(lo), Ok(hi)) = (tokens[i].parse::<u16>(), tokens[i + 1].parse::<u16>()) else {
                break;
            };
            if lo > hi || hi >= SLOTS {
                return Err(format!(
                    "bad slot range {lo}-{hi} in `CLUSTER SHARDS` output"
                ));
            }
            ranges.push((lo, hi));
            i += 2;
        }
        // The shard's nodes: `id`, `port`, `ip`, `endpoint`, `role`… pairs; the
        // master's address names the shard.
        let mut name = None;
        let (mut ip, mut port, mut role) = (None, None, None);
        while i < tokens.len() && tokens[i] != "slots" {
            match tokens[i] {
                "id" => {
                    if role == Some("master") {
                        break;
                    }
                    (ip, port, role) = (None, None, None);
                }
                "ip" | "endpoint" if ip.is_none() => ip = tokens.get(i + 1).copied(),
                "port" | "tls-port" if port.is_none() => port = tokens.get(i + 1).copied(),
                "role" => role = tokens.get(i + 1).copied(),
                _ => {}
            }
            i += 1;
        }
        if role == Some("master") {
            if let (Some(ip), Some(port)) = (ip, port) {
                name = Some(format!("{ip}:{port}"));
            }
        }
        while i < tokens.len() && tokens[i] != "slots" {
            i += 1;
        }
        let name = name.unwrap_or_else(|| format!("shard {}", nodes.len() + 1));
        nodes.push(Node { name, ranges });
    }
    Layout::from_nodes(nodes, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn even_split_matches_redis_cli_create() {
        let l = Layout::even(3).unwrap();
        let r: Vec<_> = l.nodes.iter().map(|n| n.ranges[0]).collect();
        assert_eq!(r, [(0, 5460), (5461, 10922), (10923, 16383)]);
        let l = Layout::even(1).unwrap();
        assert_eq!(l.nodes[0].ranges, [(0, 16383)]);
        assert_eq!(Layout::even(16384).unwrap().nodes.len(), 16384);
    }

    #[test]
    fn cluster_nodes() {
        let text = "\
07c37dfeb235213a872192d90877d0cd55635b91 127.0.0.1:30004@31004,host1 slave e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca 0 1426238317239 4 connected
67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1 127.0.0.1:30002@31002 master - 0 1426238316232 2 connected 5461-10922
292f8b365bb7edb5e285caf0b7e6ddc7265d2f4f 127.0.0.1:30003@31003 master - 0 1426238318243 3 connected 10923-16383 [10923-<-abc]
e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca 127.0.0.1:30001@31001 myself,master - 0 0 1 connected 0-5459 5460
";
        let l = Layout::parse(text).unwrap();
        assert_eq!(l.nodes[0].name, "127.0.0.1:30001");
        assert_eq!(l.nodes[0].ranges, [(0, 5459), (5460, 5460)]);
        assert_eq!(l.owner(5460), 0);
        assert_eq!(l.owner(5461), 1);
        assert_eq!(l.owner(16383), 2);
        assert_eq!(l.unowned(), 0);
    }

    #[test]
    fn cluster_shards_raw_and_quoted() {
        let raw = "slots\n0\n5460\nnodes\nid\nabc\nport\n30001\nip\n127.0.0.1\nendpoint\n127.0.0.1\nrole\nmaster\nhealth\nonline\nid\ndef\nport\n30004\nip\n127.0.0.1\nrole\nreplica\nslots\n5461\n16383\nnodes\nid\nx\nport\n30002\nip\n127.0.0.1\nrole\nmaster\n";
        let l = Layout::parse(raw).unwrap();
        assert_eq!(l.nodes.len(), 2);
        assert_eq!(l.nodes[0].name, "127.0.0.1:30001");
        assert_eq!(l.nodes[1].ranges, [(5461, 16383)]);
        let quoted = "1) 1) \"slots\"\n   2) 1) (integer) 0\n      2) (integer) 16383\n   3) \"nodes\"\n   4) 1)  1) \"id\"\n          2) \"abc\"\n          3) \"port\"\n          4) (integer) 30001\n          5) \"ip\"\n          6) \"127.0.0.1\"\n          7) \"role\"\n          8) \"master\"\n";
        let l = Layout::parse(quoted).unwrap();
        assert_eq!(l.nodes[0].name, "127.0.0.1:30001");
        assert_eq!(l.nodes[0].ranges, [(0, 16383)]);
    }
}
