package main

import (
	"crypto/ed25519"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/internal/testbin"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/runtimetest"
	"gopkg.in/yaml.v3"
)

// action is the part of action.yml a composite action's runner reads.
type action struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	Inputs      map[string]struct {
		Description string `yaml:"description"`
		Required    bool   `yaml:"required"`
		Default     string `yaml:"default"`
	} `yaml:"inputs"`
	Runs struct {
		Using string       `yaml:"using"`
		Steps []actionStep `yaml:"steps"`
	} `yaml:"runs"`
}

type actionStep struct {
	Name             string            `yaml:"name"`
	Uses             string            `yaml:"uses"`
	With             map[string]string `yaml:"with"`
	Shell            string            `yaml:"shell"`
	Run              string            `yaml:"run"`
	WorkingDirectory string            `yaml:"working-directory"`
	Env              map[string]string `yaml:"env"`
}

func loadAction(t *testing.T) action {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "action.yml"))
	require.NoError(t, err)
	var a action
	dec := yaml.NewDecoder(strings.NewReader(string(b)))
	dec.KnownFields(false)
	require.NoError(t, dec.Decode(&a))
	return a
}

func TestActionIsACompositeActionWithDocumentedInputs(t *testing.T) {
	a := loadAction(t)
	assert.NotEmpty(t, a.Name)
	assert.NotEmpty(t, a.Description)
	assert.Equal(t, "composite", a.Runs.Using)
	for name, in := range a.Inputs {
		assert.NotEmpty(t, in.Description, "input %s is undocumented", name)
		assert.False(t, in.Required, "input %s: the one-line `uses:` needs no inputs", name)
	}
	for _, s := range a.Runs.Steps {
		if s.Uses != "" {
			assert.Regexp(t, `^actions/setup-go@v\d+$`, s.Uses, "the only action used is setup-go")
			continue
		}
		assert.Equal(t, "bash", s.Shell, "step %q: composite run steps name their shell", s.Name)
	}
}

func TestActionNeverInterpolatesInputsIntoScripts(t *testing.T) {
	// An expression in a run: script is pasted into the shell before it
	// runs: an input (a branch name, a work item) could inject commands.
	// Inputs reach scripts only through env:.
	for _, s := range loadAction(t).Runs.Steps {
		assert.NotContains(t, s.Run, "${{", "step %q interpolates an expression into its script", s.Name)
	}
}

// expression is `${{ expr }}` in the subset the action may use.
var expression = regexp.MustCompile(`\$\{\{\s*([^}]*?)\s*\}\}`)

// actionRun is one local run of the action's steps.
type actionRun struct {
	workspace, actionPath, runnerTemp, summary string
	inputs                                     map[string]string
	// github holds the github context the run sees (event_name,
	// event.pull_request.base.sha, ...); anything else is "", as on a
	// runner whose event lacks it.
	github map[string]string
}

func (r *actionRun) eval(t *testing.T, s string) string {
	t.Helper()
	return expression.ReplaceAllStringFunc(s, func(m string) string {
		expr := expression.FindStringSubmatch(m)[1]
		switch {
		case expr == "github.action_path":
			return r.actionPath
		case expr == "github.workspace":
			return r.workspace
		case expr == "runner.temp":
			return r.runnerTemp
		case strings.HasPrefix(expr, "inputs."):
			return r.inputs[strings.TrimPrefix(expr, "inputs.")]
		case strings.HasPrefix(expr, "github."):
			return r.github[strings.TrimPrefix(expr, "github.")]
		}
		t.Fatalf("expression %q is outside what the local runner evaluates", expr)
		return ""
	})
}

// run executes the action's run: steps the way the runner does (bash
// --noprofile --norc -eo pipefail), skipping setup-go when Go is on PATH;
// it returns the last step's stdout and exit code.
func (r *actionRun) run(t *testing.T, a action) (stdout string, code int) {
	t.Helper()
	inputs := map[string]string{}
	for name, in := range a.Inputs {
		inputs[name] = in.Default
	}
	for k, v := range r.inputs {
		require.Contains(t, a.Inputs, k, "input %s is not declared", k)
		inputs[k] = v
	}
	r.inputs = inputs
	githubEnv := filepath.Join(r.runnerTemp, "github_env")
	require.NoError(t, os.WriteFile(githubEnv, nil, 0o600))
	for _, s := range a.Runs.Steps {
		if s.Uses != "" {
			for _, v := range s.With {
				r.eval(t, v)
			}
			_, err := exec.LookPath("go")
			require.NoError(t, err, "setup-go is replaced by the Go on PATH")
			continue
		}
		r.seedBuildOutput(t, s)
		script := filepath.Join(r.runnerTemp, "step.sh")
		require.NoError(t, os.WriteFile(script, []byte(s.Run), 0o600))
		cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", script)
		cmd.Dir = r.workspace
		if s.WorkingDirectory != "" {
			cmd.Dir = r.eval(t, s.WorkingDirectory)
		}
		cmd.Env = append(actionEnv(), "GITHUB_WORKSPACE="+r.workspace, "GITHUB_ACTION_PATH="+r.actionPath,
			"RUNNER_TEMP="+r.runnerTemp, "GITHUB_STEP_SUMMARY="+r.summary, "GITHUB_ACTIONS=true", "CI=true",
			"GITHUB_ENV="+githubEnv,
			// A runner starts with no state: never read the developer's own store.
			"XDG_STATE_HOME="+filepath.Join(r.runnerTemp, "state"))
		// What earlier steps appended to $GITHUB_ENV reaches the later ones.
		set, err := os.ReadFile(githubEnv)
		require.NoError(t, err)
		for _, line := range strings.Split(strings.TrimSpace(string(set)), "\n") {
			if line != "" {
				cmd.Env = append(cmd.Env, line)
			}
		}
		for k, v := range s.Env {
			cmd.Env = append(cmd.Env, k+"="+r.eval(t, v))
		}
		var out, errOut strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err = cmd.Run()
		var exit *exec.ExitError
		switch {
		case err == nil:
			stdout, code = out.String(), 0
		case errors.As(err, &exit):
			stdout, code = out.String(), exit.ExitCode()
			t.Logf("step %q exited %d; stderr:\n%s", s.Name, code, errOut.String())
			return stdout, code
		default:
			require.NoError(t, err, "step %q", s.Name)
		}
	}
	return stdout, code
}

// buildOutput is the executable the action's build step writes under
// $RUNNER_TEMP.
var buildOutput = regexp.MustCompile(`^go build -trimpath -o "\$RUNNER_TEMP/([^"]+)" \./cmd/the-loop\n?$`)

// seedBuildOutput puts the binary testbin built the way the build step
// builds (CGO_ENABLED=0 -trimpath, in the action's folder) where step s
// writes it. The step still runs `go build`, which finds its output up to
// date (the same build ID) instead of linking 27 MB again in every subtest;
// a binary of another source state or flags is linked anew, as on a runner.
func (r *actionRun) seedBuildOutput(t *testing.T, s actionStep) {
	t.Helper()
	m := buildOutput.FindStringSubmatch(s.Run)
	if m == nil || s.Env["CGO_ENABLED"] != "0" {
		return
	}
	built, err := os.ReadFile(testbin.Build(t, testbin.Module+"/cmd/the-loop"))
	require.NoError(t, err)
	out := filepath.Join(r.runnerTemp, filepath.FromSlash(m[1]))
	require.NoError(t, os.MkdirAll(filepath.Dir(out), 0o755))
	require.NoError(t, os.WriteFile(out, built, 0o755))
}

// actionEnv is the test's environment without the loop's own variables.
func actionEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "THE_LOOP_") || strings.HasPrefix(k, "GITHUB_") || strings.HasPrefix(k, "INPUT_") || k == "CREDENTIALS_DIRECTORY" || k == "XDG_STATE_HOME" {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// newActionRun lays out a workspace as actions/checkout leaves it for a
// pull request: a git repository holding the fixture (under subdir) whose
// one commit is the pull request's base; a test commits the change on top.
func newActionRun(t *testing.T, subdir string, inputs map[string]string) *actionRun {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on PATH: the action reads the base's keys with git")
	}
	ws := t.TempDir()
	repo := ws
	if subdir != "" {
		repo = filepath.Join(ws, subdir)
	}
	require.NoError(t, os.CopyFS(repo, os.DirFS(fixtureRepo(t))))
	gitIn(t, ws, "init", "-q", "-b", "main")
	gitIn(t, ws, "add", "-A")
	gitIn(t, ws, "commit", "-q", "-m", "base")
	return &actionRun{workspace: ws, actionPath: root, runnerTemp: t.TempDir(),
		summary: filepath.Join(t.TempDir(), "summary.md"), inputs: inputs,
		github: map[string]string{"event_name": "pull_request", "event.pull_request.base.sha": gitIn(t, ws, "rev-parse", "HEAD"),
			"event.repository.default_branch": "main", "server_url": "https://github.com", "repository": "acme/widgets"}}
}

func TestActionStepsRunLocally(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	a := loadAction(t)

	t.Run("defaults: every item, a block fails the job", func(t *testing.T) {
		r := newActionRun(t, "", nil)
		out, code := r.run(t, a)
		assert.Equal(t, 1, code)
		assert.Contains(t, out, "::error file=docs/specs/issue-2/requirements.md,line=10,title=issue-2 · requirements-definition (block)::required section is empty: Security considerations\n")
		assert.Contains(t, out, "::notice title=issue-3 · design-approval (wait)::no authorized feedback yet\n", "a wait passes under the default fail-on: block")
		assert.NotContains(t, out, "no signing key", "the committed public key verifies: no secret is needed")
		summary, err := os.ReadFile(r.summary)
		require.NoError(t, err)
		assert.Contains(t, string(summary), "**1/6 work items satisfied** · 2 failing the check (`--fail-on block`)")
	})

	t.Run("one item, pinned to a key that did not sign it: its decisions stop counting", func(t *testing.T) {
		other := runtime.EncodePublicKey(testKeyFor("another host").Public().(ed25519.PublicKey))
		r := newActionRun(t, "", map[string]string{"work-item": "issue-4", "public-key": other})
		out, code := r.run(t, a)
		assert.Equal(t, 1, code, "the record's claims are drift, which fails under fail-on: block\n%s", out)
		assert.Contains(t, out, "which is not a key this repository trusts — ignored", "the public-key input reaches the check")
		assert.Contains(t, out, "::error title=issue-4 · drift::the record stands at complete, but recomputation stops at phase-selection")
		assert.Contains(t, out, "0/1 work items satisfied")
	})

	t.Run("a pull request appends a key and signs approvals with it: the base never trusted it", func(t *testing.T) {
		r := newActionRun(t, "", map[string]string{"work-item": "issue-4"})
		forger := testKeyFor("forger")
		appendKey(t, r.workspace, forger.Public().(ed25519.PublicKey))
		require.NoError(t, runtimetest.ResignState(filepath.Join(r.workspace, "docs", "specs", "issue-4"), forger))
		gitIn(t, r.workspace, "commit", "-q", "-am", "forged approvals")
		out, code := r.run(t, a)
		assert.Equal(t, 1, code, out)
		id := runtime.KeyID(forger.Public().(ed25519.PublicKey))
		assert.Contains(t, out, "::warning title=the-loop check::.the-loop/signing.pub names key "+id+", which "+r.github["event.pull_request.base.sha"]+" does not trust")
		assert.Contains(t, out, "is signed by key "+id+", which is not a key this repository trusts — ignored")
		assert.Contains(t, out, "::error title=issue-4 · drift::the record stands at complete, but recomputation stops at phase-selection")
	})

	t.Run("a push: the keys of the commit before it", func(t *testing.T) {
		r := newActionRun(t, "", map[string]string{"work-item": "issue-4"})
		before := r.github["event.pull_request.base.sha"]
		r.github = map[string]string{"event_name": "push", "event.before": before}
		forger := testKeyFor("forger")
		appendKey(t, r.workspace, forger.Public().(ed25519.PublicKey))
		require.NoError(t, runtimetest.ResignState(filepath.Join(r.workspace, "docs", "specs", "issue-4"), forger))
		gitIn(t, r.workspace, "commit", "-q", "-am", "forged approvals")
		out, code := r.run(t, a)
		assert.Equal(t, 1, code, out)
		assert.Contains(t, out, "which "+before+" does not trust")
	})

	t.Run("a record copied from another repository: its decisions name that one", func(t *testing.T) {
		r := newActionRun(t, "", map[string]string{"work-item": "issue-4"})
		r.github["repository"] = "victim/app"
		out, code := r.run(t, a)
		assert.Equal(t, 1, code, out)
		assert.Contains(t, out, "was recorded for github.com/acme/widgets, not github.com/victim/app — ignored")
	})

	t.Run("no base to anchor at: the job fails and says which input to set", func(t *testing.T) {
		r := newActionRun(t, "", map[string]string{"work-item": "issue-4"})
		r.github = map[string]string{"event_name": "workflow_dispatch"}
		out, code := r.run(t, a)
		assert.Equal(t, 1, code)
		assert.Contains(t, out, "::error title=the-loop::cannot tell which commit's keys to trust")
	})

	t.Run("one item, legacy signing key and no committed public key: nothing verifies", func(t *testing.T) {
		r := newActionRun(t, "", map[string]string{"work-item": "issue-4", "signing-key": "ci-key"})
		require.NoError(t, os.Remove(filepath.Join(r.workspace, ".the-loop", "signing.pub")))
		out, code := r.run(t, a)
		assert.Equal(t, 1, code, out)
		assert.NotContains(t, out, "no signing key", "the signing-key input reaches the check")
		assert.Contains(t, out, "is signed with Ed25519 but no public key is available")
	})

	t.Run("a repository in a subdirectory, failing on unmet", func(t *testing.T) {
		r := newActionRun(t, "app", map[string]string{"repo": "app", "fail-on": "unmet"})
		out, code := r.run(t, a)
		assert.Equal(t, 1, code, out)
		assert.Contains(t, out, "::error file=app/docs/specs/issue-2/requirements.md,line=10,", "annotations name workspace paths")
		assert.Contains(t, out, "::error title=issue-3 · design-approval (wait)::no authorized feedback yet\n", "under fail-on: unmet a wait fails")
	})
}
