package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/service"
)

func init() {
	register(&Command{
		Name:    "keys",
		Usage:   "keys init [--repo DIR] [--key-file PATH] [--force] | keys show [--repo DIR] | keys resign (<id> | --all) [--repo DIR] [--db FILE]",
		Summary: "make the decision-signing key pair on this host, show it, or re-sign legacy HMAC decisions",
		Run:     runKeys,
	})
}

func runKeys(ctx context.Context, env *Env, args []string) error {
	if len(args) == 0 {
		return usageErrorf("keys needs a subcommand: init, show or resign")
	}
	switch args[0] {
	case "init":
		return runKeysInit(ctx, env, args[1:])
	case "show":
		return runKeysShow(ctx, env, args[1:])
	case "resign":
		return runKeysResign(ctx, env, args[1:])
	}
	return usageErrorf("keys has no subcommand %q; use init, show or resign", args[0])
}

// defaultKeyFile is where keys init puts the private key when neither
// --key-file nor signing.privateKeyFile names a place.
func defaultKeyFile(env *Env) string {
	dir := env.Getenv("XDG_CONFIG_HOME")
	if dir == "" {
		home := env.Getenv("HOME")
		if home == "" {
			return ""
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "the-loop", "signing.key")
}

func runKeysInit(ctx context.Context, env *Env, args []string) error {
	fs, cfgPath := flagSet(env, "keys init", "keys init [--repo DIR] [--key-file PATH] [--force]")
	repo := fs.String("repo", ".", "repository whose .the-loop/signing.pub receives the public key")
	keyFile := fs.String("key-file", "", "private key path on this host (default signing.privateKeyFile, else ~/.config/the-loop/signing.key)")
	force := fs.Bool("force", false, "replace an existing private key with a new one")
	if pos, err := parseFlags(fs, args); err != nil {
		return err
	} else if len(pos) > 0 {
		return usageErrorf("keys init takes no arguments, got %q", strings.Join(pos, " "))
	}
	// keys init makes the key the configuration names, so it must not
	// require that key to exist: it builds the service without loading keys.
	cfg, err := loadConfig(env, *cfgPath)
	if err != nil {
		return err
	}
	svc := &service.Service{Config: cfg, Signer: runtime.NewSigner(nil)}
	defer svc.Close()
	path := *keyFile
	if path == "" {
		path = svc.Config.Signing.PrivateKeyFile
	}
	if path == "" {
		path = defaultKeyFile(env)
	}
	res, err := svc.KeysInit(ctx, service.KeysInitRequest{Repo: resolveDir(env, *repo), KeyFile: path, Force: *force})
	if err != nil {
		return &usageError{msg: err.Error()}
	}
	made := "kept (already there)"
	if res.Created {
		made = "created"
	}
	fmt.Fprintf(env.Stdout, "private key: %s (mode 0600, %s) — it never leaves this host and is never given to a session\n", res.KeyFile, made)
	fmt.Fprintf(env.Stdout, "public key:  %s (key %s) — commit it; check --recompute verifies with it and needs no secret\n", res.PublicKeyFile, res.KeyID)
	if !res.Configured {
		where := svc.Config.Path
		if where == "" {
			where = "the config file"
		}
		fmt.Fprintf(env.Stdout, "next: set signing.privateKeyFile: %s in %s, so the poller signs with it\n", res.KeyFile, where)
	}
	return nil
}

func runKeysShow(ctx context.Context, env *Env, args []string) error {
	fs, cfgPath := flagSet(env, "keys show", "keys show [--repo DIR]")
	repo := fs.String("repo", ".", "repository whose committed key to show")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	svc, err := newService(env, *cfgPath, "")
	if err != nil {
		return &usageError{msg: err.Error()}
	}
	defer svc.Close()
	if err := ctx.Err(); err != nil {
		return err
	}
	dir := resolveDir(env, *repo)
	switch {
	case svc.Signer.SignsWithEd25519():
		for _, k := range svc.Signer.PublicKeys() {
			fmt.Fprintf(env.Stdout, "this host signs with key %s (%s)\n", runtime.KeyID(k), runtime.EncodePublicKey(k))
		}
	case svc.Signer.CanSign():
		fmt.Fprintln(env.Stdout, "this host signs with the legacy HMAC key; run `the-loop keys init` to move to Ed25519")
	default:
		fmt.Fprintln(env.Stdout, "this host holds no signing key: decisions recorded here are unsigned")
	}
	committed, err := runtime.ReadPublicKeyFile(filepath.Join(dir, filepath.FromSlash(runtime.PublicKeyFile)))
	if err != nil {
		fmt.Fprintf(env.Stdout, "%s: %v\n", runtime.PublicKeyFile, err)
		return nil
	}
	for _, k := range committed {
		fmt.Fprintf(env.Stdout, "%s trusts key %s\n", runtime.PublicKeyFile, runtime.KeyID(k))
	}
	_, warns := svc.Signer.ForRepo(dir)
	for _, w := range warns {
		fmt.Fprintln(env.Stderr, w)
	}
	return nil
}

func runKeysResign(ctx context.Context, env *Env, args []string) error {
	fs, cfgPath := flagSet(env, "keys resign", "keys resign (<id> | --all) [--repo DIR] [--db FILE]")
	repo := fs.String("repo", ".", "repository root")
	all := fs.Bool("all", false, "every work item with recorded state")
	db := fs.String("db", "", "state database")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	req := service.KeysResignRequest{Repo: resolveDir(env, *repo), All: *all}
	if len(pos) == 1 {
		req.WorkItem = pos[0]
	} else if len(pos) > 1 {
		return usageErrorf("keys resign takes at most one work item id")
	}
	svc, err := newService(env, *cfgPath, *db)
	if err != nil {
		return &usageError{msg: err.Error()}
	}
	defer svc.Close()
	res, err := svc.KeysResign(ctx, req)
	if err != nil {
		return &usageError{msg: err.Error()}
	}
	left := 0
	for _, it := range res.Items {
		fmt.Fprintf(env.Stdout, "%s: %d decision(s) re-signed with Ed25519, %d left as they were\n", it.WorkItem, it.Resigned, it.Left)
		left += it.Left
	}
	if left > 0 {
		fmt.Fprintln(env.Stderr, "decisions left as they were do not verify with the HMAC key (set THE_LOOP_SIGNING_KEY or signing.keyFile) and stay unhonoured")
	}
	return nil
}

// resolveDir makes dir absolute against the command's working directory.
func resolveDir(env *Env, dir string) string {
	if dir == "" || filepath.IsAbs(dir) {
		return dir
	}
	return filepath.Join(env.Cwd, dir)
}
