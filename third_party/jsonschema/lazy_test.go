package jsonschema

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
)

var drafts = []*Draft{Draft4, Draft6, Draft7, Draft2019, Draft2020}

// loadedAtStart says whether any draft's meta-schema was compiled before
// the first Compile; firstUse is what several goroutines racing to be that
// first Compile saw. TestMain records both before any test runs.
var (
	loadedAtStart []string
	firstUse      []error
)

func TestMain(m *testing.M) {
	for _, d := range drafts {
		if d.sch != nil {
			loadedAtStart = append(loadedAtStart, d.url)
		}
		for name, sch := range d.allVocabs {
			if sch != nil {
				loadedAtStart = append(loadedAtStart, d.url+" "+name)
			}
		}
	}
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Add(1)
		go func(i int) { // go 1.21: one i for the whole loop
			defer wg.Done()
			errs[i] = compileAndValidate(drafts[i%len(drafts)])
		}(i)
	}
	wg.Wait()
	firstUse = errs
	m.Run()
}

// compileAndValidate compiles a schema of draft d, which its meta-schema
// must refuse when malformed, and validates two values with it.
func compileAndValidate(d *Draft) error {
	c := NewCompiler()
	if err := c.AddResource("bad.json", map[string]any{"$schema": d.url + "#", "type": 1.0}); err != nil {
		return err
	}
	_, err := c.Compile("bad.json")
	var serr *SchemaValidationError
	if !errors.As(err, &serr) {
		return fmt.Errorf("%s: a schema with \"type\": 1 compiled (err %v); its meta-schema was not applied", d.url, err)
	}
	if err := c.AddResource("good.json", map[string]any{"$schema": d.url + "#", "type": "string", "minLength": 2.0}); err != nil {
		return err
	}
	sch, err := c.Compile("good.json")
	if err != nil {
		return fmt.Errorf("%s: %w", d.url, err)
	}
	if err := sch.Validate("ab"); err != nil {
		return fmt.Errorf("%s: %q refused: %w", d.url, "ab", err)
	}
	if sch.Validate("a") == nil {
		return fmt.Errorf("%s: %q shorter than minLength accepted", d.url, "a")
	}
	return nil
}

func TestDraftsAreCompiledOnTheFirstCompileNotAtStartUp(t *testing.T) {
	if len(loadedAtStart) > 0 {
		t.Errorf("meta-schemas compiled before the first Compile: %s", strings.Join(loadedAtStart, ", "))
	}
	for _, d := range drafts {
		if d.sch == nil {
			t.Errorf("%s: no meta-schema after Compile", d.url)
		}
		for name, sch := range d.allVocabs {
			if sch == nil {
				t.Errorf("%s: no %s vocabulary after Compile", d.url, name)
			}
		}
	}
}

func TestConcurrentFirstCompilesEachSeeTheMetaSchemas(t *testing.T) {
	for i, err := range firstUse {
		if err != nil {
			t.Errorf("goroutine %d: %v", i, err)
		}
	}
}

func TestEveryDraftStillValidatesSchemas(t *testing.T) {
	for _, d := range drafts {
		if err := compileAndValidate(d); err != nil {
			t.Error(err)
		}
	}
}
