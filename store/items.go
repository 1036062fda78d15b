package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// WorkItem is one work item's stored state.
type WorkItem struct {
	// Repo is the repository key (absolute repo root path or owner/repo);
	// with ID it forms the primary key.
	Repo string
	// ID is the work item id, e.g. issue-109.
	ID string
	// Loop names the process graph the item walks.
	Loop string
	// CurrentNode is the node the item's pointer is on.
	CurrentNode string
	// State is the caller's JSON state blob, stored verbatim.
	State []byte
	// Nodes are the per-node rows, sorted by node name when read. Saving an
	// item replaces all of its rows.
	Nodes []NodeRow
	// UpdatedAt is set by the store on every save.
	UpdatedAt time.Time
}

// NodeRow is the bookkeeping for one node of one work item.
type NodeRow struct {
	Node      string
	Attempts  int
	Outcome   string
	EnteredAt string
	ExitedAt  string
	LastBlock string
	Forced    bool
}

// Get returns the item stored under (repo, id); found is false when there is
// none. The item and its node rows come from one read snapshot.
func (s *Store) Get(ctx context.Context, repo, id string) (WorkItem, bool, error) {
	s.stateReads.Add(1)
	if err := checkKey(repo, id); err != nil {
		return WorkItem{}, false, err
	}
	tx, err := s.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return WorkItem{}, false, describe(s.path, "read", err)
	}
	defer func() { _ = tx.Rollback() }()
	it, found, err := getItem(ctx, tx, repo, id)
	if err != nil {
		return WorkItem{}, false, describe(s.path, "read", err)
	}
	return it, found, nil
}

// List returns every item stored for repo, sorted by id, each with its node
// rows, all from one read snapshot.
func (s *Store) List(ctx context.Context, repo string) ([]WorkItem, error) {
	s.stateReads.Add(1)
	if repo == "" {
		return nil, errors.New("list work items: repo is empty; pass the repository key")
	}
	tx, err := s.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, describe(s.path, "list", err)
	}
	defer func() { _ = tx.Rollback() }()
	items, err := listItems(ctx, tx, repo)
	if err != nil {
		return nil, describe(s.path, "list", err)
	}
	return items, nil
}

// Update runs fn inside one write transaction (BEGIN IMMEDIATE), so
// concurrent updaters of the same file, in this process or others, never
// lose an update. fn receives a copy of the current item (nil when there is
// none) and returns the item to save (nil saves nothing) and events to
// append; both are committed together before Update returns. fn is called
// exactly once per Update; an error from fn rolls everything back and is
// returned as is. On success the returned events get their Seq (and At when
// empty) filled in, and the saved item its UpdatedAt.
func (s *Store) Update(ctx context.Context, repo, id string, fn func(cur *WorkItem) (*WorkItem, []Event, error)) error {
	if err := checkKey(repo, id); err != nil {
		return err
	}
	if fn == nil {
		return fmt.Errorf("update %s %s: fn is nil; pass the function that computes the new state", repo, id)
	}
	tx, err := s.beginWrite(ctx, "update")
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	if err := s.lockItem(ctx, tx, repo, id); err != nil {
		return err
	}
	if _, err := s.checkFence(ctx, tx, repo, id); err != nil {
		return fmt.Errorf("update %s: %w", id, err)
	}
	cur, found, err := getItem(ctx, tx, repo, id)
	if err != nil {
		return describe(s.path, "update", err)
	}
	var curp *WorkItem
	if found {
		curp = &cur
	}
	next, evs, err := fn(curp)
	if err != nil {
		return err
	}
	now := s.now().UTC()
	if next != nil {
		if err := saveItem(ctx, tx, repo, id, next, now); err != nil {
			return fmt.Errorf("update %s %s in %s: %w", repo, id, s.path, err)
		}
	}
	stamped, err := insertEvents(ctx, tx, repo, id, evs, now)
	if err != nil {
		return fmt.Errorf("update %s %s in %s: %w", repo, id, s.path, err)
	}
	if err := tx.Commit(); err != nil {
		return describe(s.path, "commit update to", err)
	}
	if next != nil {
		next.Repo, next.ID, next.UpdatedAt = repo, id, now
	}
	copy(evs, stamped)
	return nil
}

func checkKey(repo, id string) error {
	switch {
	case repo == "":
		return errors.New("work item key: repo is empty; pass the repository key (repo root path or owner/repo)")
	case id == "":
		return errors.New("work item key: id is empty; pass the work item id, e.g. issue-109")
	}
	return nil
}

type querier interface {
	queryRower
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

func getItem(ctx context.Context, q querier, repo, id string) (WorkItem, bool, error) {
	it := WorkItem{Repo: repo, ID: id}
	var updated string
	err := q.QueryRowContext(ctx,
		`SELECT loop, current_node, state, updated_at FROM work_items WHERE repo = ? AND id = ?`, repo, id).
		Scan(&it.Loop, &it.CurrentNode, &it.State, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		return WorkItem{}, false, nil
	}
	if err != nil {
		return WorkItem{}, false, fmt.Errorf("read work item %s %s: %w", repo, id, err)
	}
	if it.UpdatedAt, err = time.Parse(time.RFC3339Nano, updated); err != nil {
		return WorkItem{}, false, fmt.Errorf("read work item %s %s: updated_at %q: %w", repo, id, updated, err)
	}
	rows, err := q.QueryContext(ctx, nodeSelect+` WHERE repo = ? AND work_item = ? ORDER BY node`, repo, id)
	if err != nil {
		return WorkItem{}, false, fmt.Errorf("read node rows of %s %s: %w", repo, id, err)
	}
	byItem, err := scanNodes(rows)
	if err != nil {
		return WorkItem{}, false, fmt.Errorf("read node rows of %s %s: %w", repo, id, err)
	}
	it.Nodes = byItem[id]
	return it, true, nil
}

func listItems(ctx context.Context, q querier, repo string) ([]WorkItem, error) {
	rows, err := q.QueryContext(ctx,
		`SELECT id, loop, current_node, state, updated_at FROM work_items WHERE repo = ? ORDER BY id`, repo)
	if err != nil {
		return nil, fmt.Errorf("list work items of %s: %w", repo, err)
	}
	var items []WorkItem
	for rows.Next() {
		it := WorkItem{Repo: repo}
		var updated string
		if err := rows.Scan(&it.ID, &it.Loop, &it.CurrentNode, &it.State, &updated); err != nil {
			_ = rows.Close()
			return nil, fmt.Errorf("list work items of %s: %w", repo, err)
		}
		if it.UpdatedAt, err = time.Parse(time.RFC3339Nano, updated); err != nil {
			_ = rows.Close()
			return nil, fmt.Errorf("list work items of %s: %s updated_at %q: %w", repo, it.ID, updated, err)
		}
		items = append(items, it)
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return nil, fmt.Errorf("list work items of %s: %w", repo, err)
	}
	nrows, err := q.QueryContext(ctx, nodeSelect+` WHERE repo = ? ORDER BY work_item, node`, repo)
	if err != nil {
		return nil, fmt.Errorf("list node rows of %s: %w", repo, err)
	}
	byItem, err := scanNodes(nrows)
	if err != nil {
		return nil, fmt.Errorf("list node rows of %s: %w", repo, err)
	}
	for i := range items {
		items[i].Nodes = byItem[items[i].ID]
	}
	return items, nil
}

const nodeSelect = `SELECT work_item, node, attempts, outcome, entered_at, exited_at, last_block, forced FROM node_states`

// scanNodes reads nodeSelect rows grouped by work item, and closes rows.
func scanNodes(rows *sql.Rows) (map[string][]NodeRow, error) {
	defer func() { _ = rows.Close() }()
	out := map[string][]NodeRow{}
	for rows.Next() {
		var item string
		var n NodeRow
		if err := rows.Scan(&item, &n.Node, &n.Attempts, &n.Outcome, &n.EnteredAt, &n.ExitedAt, &n.LastBlock, &n.Forced); err != nil {
			return nil, err
		}
		out[item] = append(out[item], n)
	}
	return out, rows.Err()
}

// validateItem checks an item returned by an Update callback.
func validateItem(repo, id string, it *WorkItem) error {
	if it.Repo != "" && it.Repo != repo {
		return fmt.Errorf("returned item has Repo %q but Update was called for repo %q; leave Repo empty or make it match", it.Repo, repo)
	}
	if it.ID != "" && it.ID != id {
		return fmt.Errorf("returned item has ID %q but Update was called for id %q; leave ID empty or make it match", it.ID, id)
	}
	if len(it.State) > 0 && !json.Valid(it.State) {
		return errors.New("returned item's State is not valid JSON; State must hold the JSON state blob")
	}
	seen := make(map[string]bool, len(it.Nodes))
	for i, n := range it.Nodes {
		switch {
		case n.Node == "":
			return fmt.Errorf("returned item's Nodes[%d].Node is empty; name the node", i)
		case seen[n.Node]:
			return fmt.Errorf("returned item's Nodes lists node %q twice; give each node one row", n.Node)
		case n.Attempts < 0:
			return fmt.Errorf("returned item's Nodes[%d] (%s) has Attempts %d; attempts cannot be negative", i, n.Node, n.Attempts)
		}
		seen[n.Node] = true
	}
	return nil
}

// saveItem upserts the item and replaces its node rows.
func saveItem(ctx context.Context, tx *sql.Tx, repo, id string, it *WorkItem, now time.Time) error {
	if err := validateItem(repo, id, it); err != nil {
		return err
	}
	var state any
	if it.State != nil {
		state = it.State
	}
	// ON CONFLICT DO UPDATE keeps the row (no cascade delete), unlike REPLACE.
	if _, err := tx.ExecContext(ctx, `INSERT INTO work_items (repo, id, loop, current_node, state, updated_at)
		VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (repo, id) DO UPDATE SET
			loop = excluded.loop, current_node = excluded.current_node,
			state = excluded.state, updated_at = excluded.updated_at`,
		repo, id, it.Loop, it.CurrentNode, state, now.Format(time.RFC3339Nano)); err != nil {
		return fmt.Errorf("save work item: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM node_states WHERE repo = ? AND work_item = ?`, repo, id); err != nil {
		return fmt.Errorf("replace node rows: %w", err)
	}
	if len(it.Nodes) == 0 {
		return nil
	}
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO node_states
		(repo, work_item, node, attempts, outcome, entered_at, exited_at, last_block, forced)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return fmt.Errorf("save node rows: %w", err)
	}
	defer func() { _ = stmt.Close() }()
	for _, n := range it.Nodes {
		if _, err := stmt.ExecContext(ctx, repo, id, n.Node, n.Attempts, n.Outcome, n.EnteredAt, n.ExitedAt, n.LastBlock, boolInt(n.Forced)); err != nil {
			return fmt.Errorf("save node row %s: %w", n.Node, err)
		}
	}
	return nil
}

// StateBlob returns only the stored state JSON of an item, in one query: the
// hot read of a server answering check, which needs neither the node rows
// nor a snapshot across tables.
func (s *Store) StateBlob(ctx context.Context, repo, id string) ([]byte, bool, error) {
	s.stateReads.Add(1)
	if err := checkKey(repo, id); err != nil {
		return nil, false, err
	}
	s.stateOnce.Do(func() {
		s.stateStmt, s.stateErr = s.read.PrepareContext(context.Background(), `SELECT state FROM work_items WHERE repo = ? AND id = ?`)
	})
	if s.stateErr != nil {
		return nil, false, describe(s.path, "read", s.stateErr)
	}
	var state []byte
	err := s.stateStmt.QueryRowContext(ctx, repo, id).Scan(&state)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, describe(s.path, "read", err)
	}
	return state, true, nil
}

// StateReads is how many queries reading items' states (StateBlob,
// States, Get, List) this store has run: what tests and benchmarks
// count per poll cycle.
func (s *Store) StateReads() int64 { return s.stateReads.Load() }

// ItemState is one item's stored pointer and state, as States reads them.
type ItemState struct {
	ID          string
	CurrentNode string
	State       []byte
}

// States returns the stored state of every item of repo (inner loops
// included, under their ids), sorted by id, in one query: what a poll
// cycle reads once instead of once per item.
func (s *Store) States(ctx context.Context, repo string) ([]ItemState, error) {
	s.stateReads.Add(1)
	if repo == "" {
		return nil, errors.New("read states: repo is empty; pass the repository key")
	}
	rows, err := s.read.QueryContext(ctx, `SELECT id, current_node, state FROM work_items WHERE repo = ? ORDER BY id`, repo)
	if err != nil {
		return nil, describe(s.path, "read the states from", err)
	}
	var out []ItemState
	for rows.Next() {
		var it ItemState
		if err := rows.Scan(&it.ID, &it.CurrentNode, &it.State); err != nil {
			_ = rows.Close()
			return nil, describe(s.path, "read the states from", err)
		}
		out = append(out, it)
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return nil, describe(s.path, "read the states from", err)
	}
	return out, nil
}

// Hold runs fn with the committed item of (repo, id) (nil when there is
// none) while holding the write lock, so no writer in this process or
// another commits until fn returns. It writes nothing: callers use it to
// publish a derived copy of the committed state (the portable record) in
// commit order. An error from fn is returned as is.
func (s *Store) Hold(ctx context.Context, repo, id string, fn func(cur *WorkItem) error) error {
	if err := checkKey(repo, id); err != nil {
		return err
	}
	tx, err := s.beginWrite(ctx, "hold")
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	if err := s.lockItem(ctx, tx, repo, id); err != nil {
		return err
	}
	cur, found, err := getItem(ctx, tx, repo, id)
	if err != nil {
		return describe(s.path, "read", err)
	}
	if !found {
		return fn(nil)
	}
	return fn(&cur)
}
