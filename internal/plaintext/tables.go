package plaintext

import "strings"

// latin1 folds U+00C0..U+00FF ("" for the two symbols × and ÷).
var latin1 = strings.Split(
	"a a a a a a ae c e e e e i i i i d n o o o o o _ o u u u u y th ss "+
		"a a a a a a ae c e e e e i i i i d n o o o o o _ o u u u u y th y", " ")

// latinExtA folds U+0100..U+017F.
var latinExtA = strings.Split(
	"a a a a a a c c c c c c c c d d d d e e e e e e e e e e g g g g g g g g h h h h "+
		"i i i i i i i i i i ij ij j j k k k l l l l l l l l l l n n n n n n n n n "+
		"o o o o o o oe oe r r r r r r s s s s s s s s t t t t t t u u u u u u u u u u u u "+
		"w w y y y z z z z z z s", " ")

func init() {
	for i, f := range latin1 {
		if f == "_" {
			latin1[i] = ""
		}
	}
}

// lookalikes folds styled Latin letters (small capitals, letterlike
// symbols) and typographic punctuation. Look-alikes of another script
// (Cyrillic "о", Greek "ο") are not folded: a word mixing them with Latin
// letters is a spoof, and a word wholly in them is that language (Fold
// refuses both).
var lookalikes = map[rune]string{
	// small capitals and IPA
	'ᴀ': "a", 'ʙ': "b", 'ᴄ': "c", 'ᴅ': "d", 'ᴇ': "e", 'ꜰ': "f", 'ɢ': "g", 'ʜ': "h", 'ɪ': "i", 'ᴊ': "j", 'ᴋ': "k",
	'ʟ': "l", 'ᴍ': "m", 'ɴ': "n", 'ᴏ': "o", 'ᴘ': "p", 'ʀ': "r", 'ꜱ': "s", 'ᴛ': "t", 'ᴜ': "u", 'ᴠ': "v", 'ᴡ': "w",
	'ʏ': "y", 'ᴢ': "z", 'ɑ': "a", 'ɡ': "g", 'ȷ': "j", 'ɩ': "i", 'ı': "i",
	// letterlike symbols
	'ℎ': "h", 'ℊ': "g", 'ℓ': "l", 'ℯ': "e", 'ℴ': "o", 'ℬ': "b", 'ℰ': "e", 'ℱ': "f", 'ℋ': "h", 'ℐ': "i", 'ℒ': "l",
	'ℳ': "m", 'ℛ': "r", 'ℭ': "c", 'ℌ': "h", 'ℑ': "i", 'ℜ': "r", 'ℨ': "z", 'ℂ': "c", 'ℍ': "h", 'ℕ': "n", 'ℙ': "p",
	'ℚ': "q", 'ℝ': "r", 'ℤ': "z", '\u212a': "k", '\u212b': "a", 'ℹ': "i",
	// typographic punctuation
	'‘': "'", '’': "'", '‛': "'", '′': "'", 'ʼ': "'", 'ʹ': "'", '´': "'",
	'“': "\"", '”': "\"", '„': "\"", '″': "\"", '«': "\"", '»': "\"", '‹': "'", '›': "'",
	'‐': "-", '‑': "-", '‒': " - ", '–': " - ", '—': " - ", '―': " - ", '−': " - ", '﹣': "-",
	'…': "...", '•': " - ", '·': " ", '¿': "?", '¡': "!", '‽': "?", '⁇': "??", '⁈': "?!", '⁉': "!?",
	'﹖': "?", '﹗': "!", '。': ".", '、': ",", '﹐': ",", '﹒': ".", '﹕': ":", '﹔': ";", '\u037e': ";",
	// arrows and a few signs of plain text
	'→': " -> ", '←': " <- ", '↔': " <-> ", '⇒': " => ", '⇐': " <= ", '⇔': " <=> ", '➡': " -> ", '⬅': " <- ",
	'⟶': " -> ", '⟵': " <- ", '↦': " -> ", '×': "x", '≥': ">=", '≤': "<=", '≈': "~", '±': "+-", '°': " deg",
	'§': " section ", '¶': " ", '™': " ", '©': " ", '®': " ", '€': " eur ", '£': " gbp ", '¥': " jpy ",
	'µ': "u",
}
