package main

import (
	"flag"
	"path/filepath"

	"github.com/the-loop/the-loop/service"
)

// itemOptions are the flags of every verb on one work item: the item (the
// one positional argument), its repository, the state database and the
// output format.
type itemOptions struct {
	service.ItemRequest
	DB     string
	Format string
}

// bind binds --repo, --db and --format (defaulting to format) onto fs.
func (o *itemOptions) bind(fs *flag.FlagSet, format string) {
	fs.StringVar(&o.Repo, "repo", ".", "repository root")
	fs.StringVar(&o.DB, "db", "", "state database (default $THE_LOOP_DB, else ~/.local/state/the-loop/the-loop.db)")
	fs.StringVar(&o.Format, "format", format, "table or json")
}

// parse parses args into the options: one work item id, a known format,
// and the repository resolved against the working directory.
func (o *itemOptions) parse(f *Factory, fs *flag.FlagSet, args []string, usage string) error {
	pos, err := f.parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErrorf("usage: the-loop %s", usage)
	}
	o.WorkItem, o.Repo = pos[0], f.path(o.Repo)
	return oneOf("format", o.Format, "table", "json")
}

// store is the core's options: the item's state database.
func (o *itemOptions) store() ServiceOptions { return ServiceOptions{DB: o.DB} }

// path makes p absolute against the command's working directory (a
// relative path names a place where the user stands, not where the process
// was started).
func (f *Factory) path(p string) string {
	if p == "" || filepath.IsAbs(p) || f.Cwd == "" {
		return p
	}
	return filepath.Join(f.Cwd, p)
}
