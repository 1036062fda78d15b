package specdir

import (
	"strconv"
	"sync"

	"github.com/the-loop/the-loop/internal/markdown"
)

// Parsed is an artifact split into front matter and body, with its sections.
type Parsed struct {
	FrontMatter map[string]any
	Body        string
	Sections    map[string]string
}

// Parse splits text (the content of name) once per evaluation.
func (d *Dir) Parse(name, text string) Parsed {
	f := d.at(name)
	v, _ := d.cache.Do("parse\x00"+f.abs+"\x00"+name+"\x00"+strconv.Itoa(len(text)), func() (any, error) {
		fm, body := markdown.SplitFrontMatter(text)
		return Parsed{FrontMatter: fm, Body: body, Sections: markdown.Sections(body)}, nil
	})
	return v.(Parsed)
}

// BodyText is the body of name (text being its content, as Read gave it),
// made once per evaluation for every hook that looks for a phrase in it
// regardless of ASCII case.
func (d *Dir) BodyText(name, text string) *BodyText {
	f := d.at(name)
	v, _ := d.cache.Do("body-text\x00"+f.abs+"\x00"+name+"\x00"+strconv.Itoa(len(text)), func() (any, error) {
		return &BodyText{text: d.Parse(name, text).Body}, nil
	})
	return v.(*BodyText)
}

// BodyText is an artifact's body that remembers which phrases it was asked
// about, so the nodes of an item asking the same get the answer at no cost.
type BodyText struct {
	text  string
	mu    sync.Mutex
	found map[string]bool
}

// String returns the body.
func (b *BodyText) String() string { return b.text }

// ContainsFold reports whether the body holds phrase, its ASCII letters
// compared regardless of case (markdown.ContainsFoldASCII); phrase is given
// in lower case (a phrase with an upper-case ASCII letter is never found).
func (b *BodyText) ContainsFold(phrase []byte) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if ok, seen := b.found[string(phrase)]; seen {
		return ok
	}
	ok := markdown.ContainsFoldASCII(b.text, string(phrase))
	if b.found == nil {
		b.found = map[string]bool{}
	}
	b.found[string(phrase)] = ok
	return ok
}
