//! Writing the config back as commented YAML, every key with its default spelled out.

use super::Config;
use crate::text::yaml;
use std::collections::BTreeMap;

impl Config {
    /// Renders the config as commented YAML with every key written out.
    pub fn render(&self) -> String {
        [
            self.head_section(),
            self.git_section(),
            self.verify_section(),
            self.llm_section(),
            self.judge_section(),
            self.specs_section(),
            self.gates_section(),
            self.hooks_section(),
            self.watch_section(),
            self.mail_section(),
            self.inspect_section(),
            self.refinery_section(),
            super::sling::section(&self.sling),
            super::approvers::section(&self.approvers),
            self.layout_section(),
            self.agents_section(),
            self.roles_section(),
        ]
        .join("\n")
    }

    /// The comment lines at the top and `prefix`.
    fn head_section(&self) -> String {
        format!(
            "# vermas settings. Keys left out take the defaults; unknown keys are an error.\n\
             # Change a value with `vermas config set KEY VALUE` (it rewrites this file).\n\
             \n\
             # Prefix of new bead ids: <prefix>-<hash>.\n\
             prefix: {prefix}\n",
            prefix = yaml::scalar(&self.prefix),
        )
    }

    /// The `git:` section.
    fn git_section(&self) -> String {
        format!(
            "git:\n\
             \x20 # Commit every change vermas makes under .beads/ (false: write files only).\n\
             \x20 commit: {commit}\n\
             \x20 # Author of those commits as \"Name <email>\"; null: git's user.name and user.email.\n\
             \x20 author: {author}\n",
            commit = self.git.commit,
            author = opt(&self.git.author),
        )
    }

    /// The `verify:` section.
    fn verify_section(&self) -> String {
        let codes: Vec<String> = self.verify.skip_codes.iter().map(i32::to_string).collect();
        let jobs = self
            .verify
            .jobs
            .map_or("null".to_string(), |j| j.to_string());
        format!(
            "verify:\n\
             \x20 # Checks run at once; null: the number of cores.\n\
             \x20 jobs: {jobs}\n\
             \x20 # Longest a check may run before its whole process group is killed.\n\
             \x20 timeout: {vtimeout}\n\
             \x20 # Bytes of a check's output that are kept.\n\
             \x20 output_cap: {cap}\n\
             \x20 # Exit codes that mean SKIP.\n\
             \x20 skip_codes: [{codes}]\n\
             \x20 # Interpreter per file pattern for targets that are not executable,\n\
             \x20 # e.g. \"*.rb\": ruby. Built in: *.sh and *.bash (bash), *.py (pytest), *.rs (cargo test).\n\
             \x20 runners:{runners}",
            vtimeout = yaml::scalar(self.verify.timeout.as_str()),
            cap = self.verify.output_cap,
            codes = codes.join(", "),
            runners = block(&self.verify.runners, "    "),
        )
    }

    /// The `llm:` section.
    fn llm_section(&self) -> String {
        format!(
            "llm:\n\
             \x20 # Command that reads the prompt on stdin and prints the reply.\n\
             \x20 command: {llm}\n\
             \x20 # Longest one LLM call may take.\n\
             \x20 timeout: {ltimeout}\n\
             \x20 # A different command per role: judge, auditor, advocate, critic, designer, strategist.\n\
             \x20 roles:{roles}\
             \x20 # New asks when the designer's or strategist's reply does not parse.\n\
             \x20 retries: {lretries}\n",
            llm = yaml::scalar(&self.llm.command),
            ltimeout = yaml::scalar(self.llm.timeout.as_str()),
            roles = block(&self.llm.roles, "    "),
            lretries = self.llm.retries,
        )
    }

    /// The `judge:` section.
    fn judge_section(&self) -> String {
        format!(
            "judge:\n\
             \x20 # Bytes of each judged file put in the prompt (the rest is marked truncated).\n\
             \x20 max_file_bytes: {maxb}\n\
             \x20 # Replies asked for per judge check; the majority decides.\n\
             \x20 samples: {samples}\n",
            maxb = self.judge.max_file_bytes,
            samples = self.judge.samples,
        )
    }

    /// The `specs:` section.
    fn specs_section(&self) -> String {
        format!(
            "specs:\n\
             \x20 # Folder of live specs, relative to the repository root.\n\
             \x20 dir: {dir}\n\
             \x20 # Create a test-spec bead (for the Inspector) with each new task, feature or bug.\n\
             \x20 auto_create: {auto_create}\n",
            dir = yaml::scalar(&self.specs.dir),
            auto_create = self.specs.auto_create,
        )
    }

    /// The `gates:` section.
    fn gates_section(&self) -> String {
        format!(
            "gates:\n\
             \x20 # Command of each deterministic gate phase (null: none configured).\n\
             \x20 red: {red}\n\
             \x20 green: {green}\n\
             \x20 refactor: {refactor}\n\
             \x20 implement: {implement}\n\
             \x20 # Longest a gate command may run before its process group is killed.\n\
             \x20 timeout: {gtimeout}\n\
             \x20 # Times GREEN runs its command; runs that disagree are rejected as flaky.\n\
             \x20 green_runs: {green_runs}\n\
             \x20 # Extra output substrings meaning a test failed / the code did not compile,\n\
             \x20 # on top of the built-in ones for go, cargo, pytest, jest, vitest, node, bats, sh.\n\
             \x20 failure_patterns: {fpat}\n\
             \x20 syntax_patterns: {spat}\n",
            red = opt(&self.gates.red),
            green = opt(&self.gates.green),
            refactor = opt(&self.gates.refactor),
            implement = opt(&self.gates.implement),
            gtimeout = yaml::scalar(self.gates.timeout.as_str()),
            green_runs = self.gates.green_runs,
            fpat = yaml::flow_list(&self.gates.failure_patterns),
            spat = yaml::flow_list(&self.gates.syntax_patterns),
        )
    }

    /// The `hooks:` section.
    fn hooks_section(&self) -> String {
        format!(
            "hooks:\n\
             \x20 pre_push:\n\
             \x20   # Which specs the pre-push gate verifies: changed or all.\n\
             \x20   scope: {scope}\n\
             \x20   # Also run the [judge] checks before a push (asks the LLM).\n\
             \x20   judge: {ppjudge}\n",
            scope = yaml::scalar(&self.hooks.pre_push.scope),
            ppjudge = self.hooks.pre_push.judge,
        )
    }

    /// The `watch:` section.
    fn watch_section(&self) -> String {
        format!(
            "watch:\n\
             \x20 # Log file of the running agent, tailed below `status --watch` in tmux (null: show\n\
             \x20 # recent .beads commits and failures instead).\n\
             \x20 agent_log: {agent_log}\n",
            agent_log = opt(&self.watch.agent_log),
        )
    }

    /// The `mail:` section.
    fn mail_section(&self) -> String {
        format!(
            "mail:\n\
             \x20 # Sender and inbox when --from / an address is not given (null: the actor's\n\
             \x20 # own mailbox, <actor>/).\n\
             \x20 from: {mail_from}\n\
             \x20 # Groups: `@name` sends to every address listed, e.g. reviewers: [inspector/critic, mayor/].\n\
             \x20 groups:{groups}",
            mail_from = opt(&self.mail.from),
            groups = groups(&self.mail.groups),
        )
    }

    /// The `inspect:` section.
    fn inspect_section(&self) -> String {
        format!(
            "inspect:\n\
             \x20 # A judge's PASS with less confidence than this (0 to 1) needs a person.\n\
             \x20 min_confidence: {min_conf}\n\
             \x20 # Longest one lifecycle hook (.beads/hooks/<Point>) may run.\n\
             \x20 hook_timeout: {hook_timeout}\n",
            min_conf = self.inspect.min_confidence,
            hook_timeout = yaml::scalar(self.inspect.hook_timeout.as_str()),
        )
    }

    /// The `refinery:` section.
    fn refinery_section(&self) -> String {
        format!(
            "refinery:\n\
             \x20 # Branch merge requests land on when `refinery submit` names none (null: the\n\
             \x20 # branch checked out when submitting).\n\
             \x20 target: {rtarget}\n\
             \x20 # How a verified branch lands: merge (a merge commit), squash (one commit) or\n\
             \x20 # ff-only (the branch itself, when the target is its ancestor).\n\
             \x20 strategy: {rstrategy}\n\
             \x20 # Verifications after the first when the target moved during the last one.\n\
             \x20 max_retries: {rretries}\n\
             \x20 # Waiting requests for one target verified together (their merges stacked\n\
             \x20 # into one candidate; a failure is found by halving); 1: one at a time.\n\
             \x20 batch: {rbatch}\n",
            rtarget = opt(&self.refinery.target),
            rstrategy = self.refinery.strategy.name(),
            rretries = self.refinery.max_retries,
            rbatch = self.refinery.batch,
        )
    }

    /// The `layout:` section.
    fn layout_section(&self) -> String {
        format!(
            "layout:\n\
             \x20 # `vermas start`: width of the left pane in percent of the window (10 to 90).\n\
             \x20 ratio: {ratio}\n\
             \x20 # Each pane's role (mayor, inspector, or an inspector role such as critic) and\n\
             \x20 # start-up command (a shell line; null: the role's watch, then agents.<role>).\n\
             \x20 left:\n\
             \x20   role: {lrole}\n\
             \x20   command: {lcommand}\n\
             \x20 right:\n\
             \x20   role: {rrole}\n\
             \x20   command: {rcommand}\n",
            ratio = self.layout.ratio,
            lrole = yaml::scalar(&self.layout.left.role),
            lcommand = opt(&self.layout.left.command),
            rrole = yaml::scalar(&self.layout.right.role),
            rcommand = opt(&self.layout.right.command),
        )
    }

    /// The `roles:` section.
    fn roles_section(&self) -> String {
        format!(
            "roles:\n\
             \x20 # `init --roles` also writes each role's workspace, .beads/roles/<role>/ with its\n\
             \x20 # CLAUDE.md and .claude/settings.json; `start` opens the panes there.\n\
             \x20 workspaces: {workspaces}\n",
            workspaces = self.roles.workspaces,
        )
    }

    /// The `agents:` section.
    fn agents_section(&self) -> String {
        format!(
            "# The agent each role runs in its pane after its watch, e.g. mayor: claude.\n\
             agents:{agents}",
            agents = block(&self.agents, "  "),
        )
    }
}

/// `v` as a YAML scalar, or `null`.
fn opt(v: &Option<String>) -> String {
    yaml::opt_scalar(v.as_deref())
}

/// A string map as an indented block under its key (or ` {}` when empty).
fn block(m: &BTreeMap<String, String>, indent: &str) -> String {
    if m.is_empty() {
        return " {}\n".to_string();
    }
    let mut out = "\n".to_string();
    for (k, v) in m {
        out.push_str(&format!(
            "{indent}{}: {}\n",
            yaml::scalar(k),
            yaml::scalar(v)
        ));
    }
    out
}

/// Renders `mail.groups` as an indented block (or ` {}`).
fn groups(g: &BTreeMap<String, Vec<String>>) -> String {
    if g.is_empty() {
        return " {}\n".to_string();
    }
    let mut out = "\n".to_string();
    for (name, members) in g {
        out.push_str(&format!(
            "    {}: {}\n",
            yaml::scalar(name),
            yaml::flow_list(members)
        ));
    }
    out
}
