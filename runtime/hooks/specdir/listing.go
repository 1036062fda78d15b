package specdir

import (
	"fmt"
	"os"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// entryKind is what a folder's listing says of one name.
type entryKind uint8

const (
	kindAbsent  entryKind = iota // not in the listing
	kindFile                     // a regular file
	kindDir                      // a folder
	kindOther                    // a symlink, a FIFO, a device: ask the file system
	kindUnknown                  // no listing could answer
)

// listing is one folder's entries, read once per evaluation: an open
// handle on the folder (inside the confining root) and the kind of each
// name in it.
type listing struct {
	fd      int      // the folder, open for openat and getdents
	file    *os.File // holds fd when the folder was opened through the root
	entries map[string]entryKind
}

// close releases the listing's handle on its folder.
func (l *listing) close() {
	if l.file != nil {
		_ = l.file.Close()
		return
	}
	closeFd(l.fd)
}

// listingOf reads folder f's sub-folder sub ("" = f itself) once per
// evaluation; nil when the evaluation shares nothing (a write path) or the
// folder cannot be listed here.
func (d *Dir) listingOf(f *folder, sub string) *listing {
	if d.cache == nil || f.root == nil {
		return nil
	}
	v, _ := d.cache.Do("list\x00"+f.abs+"\x00"+sub, func() (any, error) {
		l, err := openListing(f, sub)
		if err != nil {
			return (*listing)(nil), nil
		}
		if l.entries, err = readDirKinds(l.fd); err != nil {
			l.close()
			return (*listing)(nil), nil
		}
		d.cache.OnClose(l.close)
		return l, nil
	})
	return v.(*listing)
}

// kindOf answers what name (slash-separated, local) is from the listings of
// the folders on its way, without a stat: kindUnknown when a listing cannot
// say (no cache, a symlink on the way), so the caller asks the file system.
func (d *Dir) kindOf(f *folder, name string) entryKind {
	sub := ""
	for {
		l := d.listingOf(f, sub)
		if l == nil {
			return kindUnknown
		}
		first, rest, nested := strings.Cut(name, "/")
		k := l.entries[first]
		if !nested {
			return k
		}
		switch k {
		case kindAbsent:
			return kindAbsent
		case kindDir:
		default:
			return kindUnknown
		}
		if sub == "" {
			sub = first
		} else {
			sub += "/" + first
		}
		name = rest
	}
}

// readListed reads name, a regular file in the listing l, with one open
// that follows no symlink and cannot block on a FIFO swapped in meanwhile,
// and checks the open file is still regular; ok is false when this
// platform cannot, and the caller reads it the portable way.
func readListed(l *listing, name string) (text string, ok bool, err error) {
	b, ok, err := readAt(l.fd, name)
	if !ok || err != nil {
		return "", ok, err
	}
	if !utf8.Valid(b) {
		return "", true, fmt.Errorf("%s is not UTF-8 text", name)
	}
	if len(b) == 0 {
		return "", true, nil
	}
	// b is never written again: the string shares its bytes.
	return unsafe.String(&b[0], len(b)), true, nil
}

// errNotRegular is the refusal of a file that is not a regular one.
func errNotRegular(name string) error { return fmt.Errorf("%s is not a regular file", name) }
