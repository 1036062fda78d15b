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

// lookalikes folds letters that look like ASCII letters (Cyrillic, Greek,
// Armenian, small capitals, letterlike symbols) and typographic punctuation.
var lookalikes = map[rune]string{
	// Cyrillic
	'а': "a", 'в': "b", 'е': "e", 'ѕ': "s", 'і': "i", 'ј': "j", 'о': "o", 'р': "p", 'с': "c", 'у': "y", 'х': "x",
	'һ': "h", 'ԁ': "d", 'ԛ': "q", 'ԝ': "w", 'ӏ': "l", 'ё': "e", 'ї': "i", 'к': "k", 'м': "m", 'н': "h", 'т': "t",
	'А': "a", 'В': "b", 'Е': "e", 'К': "k", 'М': "m", 'Н': "h", 'О': "o", 'Р': "p", 'С': "c", 'Т': "t", 'Х': "x",
	'Ү': "y", 'Ѕ': "s", 'І': "i", 'Ј': "j", 'Ӏ': "l", 'Ԛ': "q", 'Ԝ': "w", 'Ё': "e",
	// Greek
	'α': "a", 'β': "b", 'ε': "e", 'ι': "i", 'κ': "k", 'ν': "v", 'ο': "o", 'ρ': "p", 'τ': "t", 'υ': "u", 'χ': "x",
	'Α': "a", 'Β': "b", 'Ε': "e", 'Ζ': "z", 'Η': "h", 'Ι': "i", 'Κ': "k", 'Μ': "m", 'Ν': "n", 'Ο': "o", 'Ρ': "p",
	'Τ': "t", 'Υ': "y", 'Χ': "x", 'ϲ': "c", 'ϳ': "j",
	// Armenian
	'օ': "o", 'ո': "n", 'ս': "u", 'հ': "h", 'զ': "q", 'ց': "g",
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
