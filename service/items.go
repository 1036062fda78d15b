package service

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/the-loop/the-loop/internal/nearest"
	"github.com/the-loop/the-loop/runtime/repoconfig"
	"github.com/the-loop/the-loop/store"
)

// ErrUnknownItem marks an id that names no work item of the repository:
// it has no spec folder and the state store holds nothing for it. A typo
// is refused, never taken for a new item.
var ErrUnknownItem = errors.New("unknown work item")

// ErrNoWorkItems marks a check that would pass on nothing: the repository
// has no spec folder, or no work item in it.
var ErrNoWorkItems = errors.New("no work items to check")

// nearestShown is how many known ids a refusal of an unknown one names.
const nearestShown = 3

// requireKnown refuses id unless it names a work item of repo: its spec
// folder exists, or st (nil: none yet) holds state for it. The refusal
// names the nearest known ids.
func (s *Service) requireKnown(ctx context.Context, st *store.Store, repo *repoconfig.Repo, id string) error {
	if fi, err := os.Stat(repo.SpecDir(id)); err == nil && fi.IsDir() {
		return nil
	}
	if st != nil {
		if _, found, err := st.Get(ctx, repo.Root, id); err != nil {
			return err
		} else if found {
			return nil
		}
		// An item refused at arming has events and no state.
		if evs, err := st.Events(ctx, repo.Root, id); err != nil {
			return err
		} else if len(evs) > 0 {
			return nil
		}
	}
	known, err := knownItems(ctx, st, repo)
	if err != nil {
		return err
	}
	if len(known) == 0 {
		where, fix := nothingIn(repo)
		return invalid(fmt.Errorf("%w %q: %s; %s", ErrUnknownItem, id, where, fix))
	}
	hint := nearest.Phrase(nearest.Close(id, known))
	if hint == "" {
		hint = fmt.Sprintf("the nearest known ones are %s", quoteList(nearest.Ranked(id, known, nearestShown)))
	}
	return invalid(fmt.Errorf("%w %q in %s: %s/%s does not exist and no state is stored for it; %s (`the-loop check --all --repo %s` lists every work item; a new item begins with `the-loop graph start <id>` or its spec folder)",
		ErrUnknownItem, id, repo.Root, repo.SpecRoot, id, hint, repo.Root))
}

// knownItems lists the ids of repo: its spec folders and the items the
// store holds for it, sorted, without repeats.
func knownItems(ctx context.Context, st *store.Store, repo *repoconfig.Repo) ([]string, error) {
	ids, err := repo.WorkItems()
	if err != nil {
		return nil, err
	}
	if st != nil {
		stored, err := st.List(ctx, repo.Root)
		if err != nil {
			return nil, err
		}
		for _, it := range stored {
			ids = append(ids, it.ID)
		}
	}
	slices.Sort(ids)
	return slices.Compact(ids), nil
}

// noWorkItems is the refusal of a check over nothing.
func noWorkItems(repo *repoconfig.Repo) error {
	where, fix := nothingIn(repo)
	return invalid(fmt.Errorf("%w: %s; %s", ErrNoWorkItems, where, fix))
}

// nothingIn says why repo has no work item — it names the repository root
// looked in, the spec folder expected and where that name came from — and
// how to fix it, naming the enclosing repository when the command ran
// inside one.
func nothingIn(repo *repoconfig.Repo) (where, fix string) {
	where = fmt.Sprintf("the spec folder %s (%s) does not exist in the repository root %s", repo.SpecRoot, repo.SpecRootSource(), repo.Root)
	if repo.HasSpecRoot() {
		where = fmt.Sprintf("the spec folder %s (%s) in the repository root %s holds no work item folder", repo.SpecRoot, repo.SpecRootSource(), repo.Root)
	}
	fix = "run from the repository root or pass --repo DIR"
	if up := repoconfig.EnclosingRoot(repo.Root); up != "" {
		fix = fmt.Sprintf("this directory is inside %s: pass --repo %s", up, up)
	}
	return where, fix
}

func quoteList(ids []string) string {
	q := ""
	for i, id := range ids {
		switch {
		case i == 0:
		case i == len(ids)-1:
			q += " and "
		default:
			q += ", "
		}
		q += fmt.Sprintf("%q", id)
	}
	return q
}
