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

func runKeys(ctx context.Context, f *Factory, args []string) error {
	if len(args) == 0 {
		return usageErrorf("keys needs a subcommand: init, show or resign")
	}
	switch args[0] {
	case "init":
		return runKeysInit(ctx, f, args[1:])
	case "show":
		return runKeysShow(ctx, f, args[1:])
	case "resign":
		return runKeysResign(ctx, f, args[1:])
	}
	return usageErrorf("keys has no subcommand %q; use init, show or resign", args[0])
}

// defaultKeyFile is where keys init puts the private key when neither
// --key-file nor signing.privateKeyFile names a place.
func defaultKeyFile(f *Factory) string {
	dir := f.Getenv("XDG_CONFIG_HOME")
	if dir == "" {
		home := f.Getenv("HOME")
		if home == "" {
			return ""
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "the-loop", "signing.key")
}

func runKeysInit(ctx context.Context, f *Factory, args []string) error {
	fs := flagSet(f, "keys init", "keys init [--repo DIR] [--key-file PATH] [--force]")
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
	svc, err := f.Service(ServiceOptions{NoSigningKey: true})
	if err != nil {
		return err
	}
	defer svc.Close()
	path := *keyFile
	if path == "" {
		path = svc.Config().Signing.PrivateKeyFile
	}
	if path == "" {
		path = defaultKeyFile(f)
	}
	res, err := svc.KeysInit(ctx, service.KeysInitRequest{Repo: resolveDir(f, *repo), KeyFile: path, Force: *force})
	if err != nil {
		return err
	}
	made := "kept (already there)"
	if res.Created {
		made = "created"
	}
	fmt.Fprintf(f.Stdout, "private key: %s (mode 0600, %s) — it never leaves this host and is never given to a session\n", res.KeyFile, made)
	fmt.Fprintf(f.Stdout, "public key:  %s (key %s) — commit it; check --recompute verifies with it and needs no secret\n", res.PublicKeyFile, res.KeyID)
	if !res.Configured {
		where := svc.Config().Path
		if where == "" {
			where = "the config file"
		}
		fmt.Fprintf(f.Stdout, "next: set signing.privateKeyFile: %s in %s, so the poller signs with it\n", res.KeyFile, where)
	}
	return nil
}

func runKeysShow(ctx context.Context, f *Factory, args []string) error {
	fs := flagSet(f, "keys show", "keys show [--repo DIR]")
	repo := fs.String("repo", ".", "repository whose committed key to show")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	svc, err := f.Service(ServiceOptions{})
	if err != nil {
		return err
	}
	defer svc.Close()
	res, err := svc.KeysShow(ctx, service.KeysShowRequest{Repo: resolveDir(f, *repo)})
	if err != nil {
		return err
	}
	switch res.Signing {
	case service.SigningEd25519:
		for _, k := range res.HostKeys {
			fmt.Fprintf(f.Stdout, "this host signs with key %s (%s)\n", k.ID, k.PublicKey)
		}
	case service.SigningHMAC:
		fmt.Fprintln(f.Stdout, "this host signs with the legacy HMAC key; run `the-loop keys init` to move to Ed25519")
	default:
		fmt.Fprintln(f.Stdout, "this host holds no signing key: decisions recorded here are unsigned")
	}
	if res.CommittedError != "" {
		fmt.Fprintf(f.Stdout, "%s: %s\n", runtime.PublicKeyFile, res.CommittedError)
		return nil
	}
	for _, k := range res.Committed {
		fmt.Fprintf(f.Stdout, "%s trusts key %s\n", runtime.PublicKeyFile, k.ID)
	}
	printWarnings(f, res.Warnings)
	return nil
}

func runKeysResign(ctx context.Context, f *Factory, args []string) error {
	fs := flagSet(f, "keys resign", "keys resign (<id> | --all) [--repo DIR] [--db FILE]")
	repo := fs.String("repo", ".", "repository root")
	all := fs.Bool("all", false, "every work item with recorded state")
	db := fs.String("db", "", "state database")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	req := service.KeysResignRequest{Repo: resolveDir(f, *repo), All: *all}
	if len(pos) == 1 {
		req.WorkItem = pos[0]
	} else if len(pos) > 1 {
		return usageErrorf("keys resign takes at most one work item id")
	}
	svc, err := f.Service(ServiceOptions{DB: *db})
	if err != nil {
		return err
	}
	defer svc.Close()
	res, err := svc.KeysResign(ctx, req)
	if err != nil {
		return err
	}
	left := 0
	for _, it := range res.Items {
		fmt.Fprintf(f.Stdout, "%s: %d decision(s) re-signed with Ed25519, %d left as they were\n", it.WorkItem, it.Resigned, it.Left)
		left += it.Left
	}
	if left > 0 {
		fmt.Fprintln(f.Stderr, "decisions left as they were do not verify with the HMAC key (set THE_LOOP_SIGNING_KEY or signing.keyFile) and stay unhonoured")
	}
	return nil
}

// resolveDir makes dir absolute against the command's working directory.
func resolveDir(f *Factory, dir string) string {
	if dir == "" || filepath.IsAbs(dir) {
		return dir
	}
	return filepath.Join(f.Cwd, dir)
}
