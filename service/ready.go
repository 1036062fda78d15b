package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"
)

// ReadyCheck is one check of Ready: its name and "" when it passes, else
// what fails.
type ReadyCheck struct {
	Name    string `json:"name"`
	OK      bool   `json:"ok"`
	Problem string `json:"problem,omitempty"`
}

// ReadyOptions say where the poller's heartbeat is and how old it may be.
type ReadyOptions struct {
	// Heartbeat is the poller's heartbeat file ("" : none is checked).
	Heartbeat string
	// MaxAge is how long ago the last cycle may have ended.
	MaxAge time.Duration
	// Timeout bounds the store check (default 1 s).
	Timeout time.Duration
}

// Ready reports whether this process can serve now: the store answers
// within the timeout, and, when a heartbeat is named, the poller's last
// cycle ended within MaxAge and no tracker failed every one of its sources
// in it. Every check runs; the caller answers 503 when one fails.
func (s *Service) Ready(ctx context.Context, o ReadyOptions) []ReadyCheck {
	if o.Timeout <= 0 {
		o.Timeout = time.Second
	}
	checks := []ReadyCheck{s.readyStore(ctx, o.Timeout)}
	if o.Heartbeat != "" {
		checks = append(checks, s.readySweep(o)...)
	}
	return checks
}

func check(name string, err error) ReadyCheck {
	if err != nil {
		return ReadyCheck{Name: name, Problem: err.Error()}
	}
	return ReadyCheck{Name: name, OK: true}
}

func (s *Service) readyStore(ctx context.Context, timeout time.Duration) ReadyCheck {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	start := s.now()
	done := make(chan error, 1)
	go func() {
		st, err := s.writableStore(ctx)
		if err == nil {
			err = st.Ping(ctx)
		}
		done <- err
	}()
	select {
	case err := <-done:
		return check("store", err)
	case <-ctx.Done():
		return check("store", fmt.Errorf("the store did not answer within %s", s.now().Sub(start).Round(time.Millisecond)))
	}
}

// readySweep reads the poller's heartbeat: its age, then each tracker's
// sources in it.
func (s *Service) readySweep(o ReadyOptions) []ReadyCheck {
	fi, err := os.Stat(o.Heartbeat)
	if errors.Is(err, os.ErrNotExist) {
		return []ReadyCheck{check("sweep", fmt.Errorf("no poll cycle has ended yet (no heartbeat at %s): is the-loop poll running on this store?", o.Heartbeat))}
	}
	if err != nil {
		return []ReadyCheck{check("sweep", fmt.Errorf("read the poll heartbeat: %w", err))}
	}
	if age := s.now().Sub(fi.ModTime()); o.MaxAge > 0 && age > o.MaxAge {
		return []ReadyCheck{check("sweep", fmt.Errorf("the last poll cycle ended %s ago, more than %s", age.Round(time.Second), o.MaxAge))}
	}
	data, err := os.ReadFile(o.Heartbeat)
	if err != nil {
		return []ReadyCheck{check("sweep", fmt.Errorf("read the poll heartbeat: %w", err))}
	}
	var rep CycleReport
	if err := json.Unmarshal(data, &rep); err != nil {
		return []ReadyCheck{check("sweep", fmt.Errorf("the poll heartbeat %s is not a cycle report: %w", o.Heartbeat, err))}
	}
	return []ReadyCheck{check("sweep", nil), check("trackers", failingTrackers(rep))}
}

// failingTrackers names each tracker whose every source failed in rep.
func failingTrackers(rep CycleReport) error {
	total, failed, first := map[string]int{}, map[string]int{}, map[string]string{}
	for _, src := range rep.Sources {
		total[src.System]++
		if src.Error != "" {
			failed[src.System]++
			if first[src.System] == "" {
				first[src.System] = src.Container + ": " + src.Error
			}
		}
	}
	var problems []string
	for sys, n := range total {
		if failed[sys] == n {
			problems = append(problems, fmt.Sprintf("every %s source failed in the last cycle (%s)", sys, first[sys]))
		}
	}
	if len(problems) == 0 {
		return nil
	}
	sort.Strings(problems)
	return errors.New(strings.Join(problems, "; "))
}
