//! `script-no-cluster`: a script or function that declares `no-cluster`, which a
//! cluster node refuses to run at all.

use super::{who, Context};
use crate::diagnostic::{Finding, Label, Severity};
use crate::model::Script;
use crate::rule::{Rule, RuleMeta};

pub(crate) const META: RuleMeta = RuleMeta {
    code: "RK203",
    name: "script-no-cluster",
    severity: Severity::Error,
    summary: "the script declares `no-cluster` and cannot run on a cluster",
};

pub(super) fn check(cx: &Context<'_>, out: &mut Vec<Finding>) {
    for script in &cx.model.scripts {
        if script.has_flag("no-cluster") {
            out.push(no_cluster(script));
        }
    }
}

fn no_cluster(script: &Script) -> Finding {
    let at = script
        .flags_span
        .clone()
        .unwrap_or_else(|| script.anchor.clone());
    Finding::new(
        Rule::ScriptNoCluster,
        format!(
            "{} declares `no-cluster`: it cannot run on a Redis Cluster",
            who(script)
        ),
        Label::new(at, "`no-cluster` is declared here"),
    )
    .with_unit(script.span.clone())
    .with_note(
        "a cluster node refuses to run it: `Can not run script on cluster, 'no-cluster' \
         flag is set.`",
    )
    .with_help(
        "remove `no-cluster` once every key the script touches is passed in `KEYS` and \
         shares one slot; keep it only for scripts meant for a standalone server",
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ScriptMode;
    use crate::rules::undeclared_script_key::{self, tests::model};

    #[test]
    fn no_cluster_is_one_finding() {
        let mut m = model(Vec::new(), ScriptMode::EvalShebang, &["no-cluster"]);
        m.scripts[0].units.clear();
        let out = crate::rules::testing::run(check, &m);
        assert_eq!(out.len(), 1);
        assert!(crate::rules::testing::run(undeclared_script_key::check, &m).is_empty());
        assert_eq!(out[0].rule, Rule::ScriptNoCluster);
    }
}
