package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/service"
)

func keysCmd() *Command {
	return &Command{Name: "keys", Noun: "subcommand", Usage: "keys <subcommand> ...",
		Summary: "make the decision-signing key pair on this host, show it, rotate it, or re-sign recorded decisions",
		Sub:     []*Command{keysInitCmd(), keysShowCmd(), keysRotateCmd(), keysResignCmd()}}
}

func keysInitCmd() *Command {
	const usage = "keys init [--repo DIR] [--key-file PATH] [--force]"
	return &Command{Name: "init", Usage: usage, Summary: "make (or reuse) this host's key pair and commit its public half",
		Run: func(ctx context.Context, f *Factory, args []string) error {
			opts := &service.KeysInitRequest{}
			fs := f.flagSet("keys init", usage)
			fs.StringVar(&opts.Repo, "repo", ".", "repository whose .the-loop/signing.pub receives the public key")
			fs.StringVar(&opts.KeyFile, "key-file", "", "private key path on this host (default signing.privateKeyFile, else ~/.config/the-loop/signing.key)")
			fs.BoolVar(&opts.Force, "force", false, "replace an existing private key with a new one")
			if pos, err := f.parseFlags(fs, args); err != nil {
				return err
			} else if len(pos) > 0 {
				return usageErrorf("keys init takes no arguments, got %q", strings.Join(pos, " "))
			}
			opts.Repo = f.path(opts.Repo)
			return runKeysInit(ctx, f, opts)
		}}
}

func runKeysInit(ctx context.Context, f *Factory, opts *service.KeysInitRequest) error {
	// keys init makes the key the configuration names, so it must not
	// require that key to exist: it builds the service without loading keys.
	svc, err := f.Service(ServiceOptions{NoSigningKey: true})
	if err != nil {
		return err
	}
	defer svc.Close()
	if opts.KeyFile == "" {
		opts.KeyFile = svc.Config().Signing.PrivateKeyFile
	}
	if opts.KeyFile == "" {
		opts.KeyFile = defaultKeyFile(f)
	}
	res, err := svc.KeysInit(ctx, *opts)
	if err != nil {
		return err
	}
	f.printWarnings(res.Warnings)
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

func keysShowCmd() *Command {
	const usage = "keys show [--repo DIR]"
	return &Command{Name: "show", Usage: usage, Summary: "how this host signs and which keys the repository trusts",
		Run: func(ctx context.Context, f *Factory, args []string) error {
			opts := &service.KeysShowRequest{}
			fs := f.flagSet("keys show", usage)
			fs.StringVar(&opts.Repo, "repo", ".", "repository whose committed key to show")
			if _, err := f.parseFlags(fs, args); err != nil {
				return err
			}
			opts.Repo = f.path(opts.Repo)
			return runKeysShow(ctx, f, opts)
		}}
}

func runKeysShow(ctx context.Context, f *Factory, opts *service.KeysShowRequest) error {
	res, err := call(ctx, f, ServiceOptions{}, (*service.Service).KeysShow, *opts)
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
	for _, r := range res.Rotations {
		fmt.Fprintf(f.Stdout, "%s records the rotation from key %s to key %s, signed by both\n", runtime.PublicKeyFile, r.From, r.To)
	}
	f.printWarnings(res.Warnings)
	return nil
}

func keysRotateCmd() *Command {
	const usage = "keys rotate [--repo DIR] [--key-file PATH]"
	return &Command{Name: "rotate", Usage: usage, Summary: "hand trust from this host's key to a new one: the new key and a rotation both keys sign go into the repository's signing.pub",
		Run: func(ctx context.Context, f *Factory, args []string) error {
			opts := &service.KeysRotateRequest{}
			fs := f.flagSet("keys rotate", usage)
			fs.StringVar(&opts.Repo, "repo", ".", "repository whose .the-loop/signing.pub receives the new key and the rotation")
			fs.StringVar(&opts.KeyFile, "key-file", "", "the new private key (made when absent, reused when it exists: the rotation of another repository; default signing-<date>.key beside signing.privateKeyFile)")
			if pos, err := f.parseFlags(fs, args); err != nil {
				return err
			} else if len(pos) > 0 {
				return usageErrorf("keys rotate takes no arguments, got %q", strings.Join(pos, " "))
			}
			opts.Repo = f.path(opts.Repo)
			return runKeysRotate(ctx, f, opts)
		}}
}

func runKeysRotate(ctx context.Context, f *Factory, opts *service.KeysRotateRequest) error {
	svc, err := f.Service(ServiceOptions{})
	if err != nil {
		return err
	}
	defer svc.Close()
	current := svc.Config().Signing.PrivateKeyFile
	if opts.KeyFile == "" && current != "" {
		opts.KeyFile = filepath.Join(filepath.Dir(current), "signing-"+time.Now().UTC().Format("2006-01-02")+".key")
	}
	res, err := svc.KeysRotate(ctx, *opts)
	if err != nil {
		return err
	}
	f.printWarnings(res.Warnings)
	made := "kept (already there)"
	if res.Created {
		made = "created"
	}
	where := svc.Config().Path
	if where == "" {
		where = "the config file"
	}
	fmt.Fprintf(f.Stdout, "rotated: key %s → key %s; %s lists both, with the rotation both keys signed — commit it\n", res.OldKeyID, res.NewKeyID, res.PublicKeyFile)
	fmt.Fprintf(f.Stdout, "new private key: %s (mode 0600, %s) — it never leaves this host and is never given to a session\n", res.KeyFile, made)
	fmt.Fprintf(f.Stdout, "next: rotate every other repository this host signs for (the-loop keys rotate --repo <checkout> --key-file %s), then set signing.privateKeyFile: %s in %s, restart the poller and delete %s\n",
		res.KeyFile, res.KeyFile, where, current)
	return nil
}

// keysResignOptions are the flags of `the-loop keys resign`.
type keysResignOptions struct {
	service.KeysResignRequest
	DB string
}

func keysResignCmd() *Command {
	const usage = "keys resign (<id> | --all) [--repo DIR] [--db FILE]"
	return &Command{Name: "resign", Usage: usage, Summary: "re-sign with this host's key the recorded decisions that verify: legacy HMAC ones, ones a rotated-from key signed, ones recorded before decisions named their repository",
		Run: func(ctx context.Context, f *Factory, args []string) error {
			opts := &keysResignOptions{}
			fs := f.flagSet("keys resign", usage)
			fs.StringVar(&opts.Repo, "repo", ".", "repository root")
			fs.BoolVar(&opts.All, "all", false, "every work item with recorded state")
			fs.StringVar(&opts.DB, "db", "", "state database")
			pos, err := f.parseFlags(fs, args)
			if err != nil {
				return err
			}
			if len(pos) > 1 {
				return usageErrorf("keys resign takes at most one work item id")
			} else if len(pos) == 1 {
				opts.WorkItem = pos[0]
			}
			opts.Repo = f.path(opts.Repo)
			return runKeysResign(ctx, f, opts)
		}}
}

func runKeysResign(ctx context.Context, f *Factory, opts *keysResignOptions) error {
	res, err := call(ctx, f, ServiceOptions{DB: opts.DB}, (*service.Service).KeysResign, opts.KeysResignRequest)
	if err != nil {
		return err
	}
	f.printWarnings(res.Warnings)
	left := 0
	for _, it := range res.Items {
		name := it.WorkItem
		if it.Loop != "" {
			name += " (" + it.Loop + ")"
		}
		bound := ""
		if it.Repository != "" {
			bound = ", bound to " + it.Repository
		}
		fmt.Fprintf(f.Stdout, "%s: %d decision(s) re-signed with Ed25519%s, %d left as they were\n", name, it.Resigned, bound, it.Left)
		left += it.Left
	}
	if left > 0 {
		fmt.Fprintln(f.Stderr, "decisions left as they were verify with no key this host trusts (the HMAC key is THE_LOOP_SIGNING_KEY or signing.keyFile), name another repository, rest on a comment of another repository or ticket, or approved artifacts that no longer carry their lock: they stay unhonoured")
	}
	return nil
}
