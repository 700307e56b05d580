package toml

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// The documents below are written by hand from the TOML 1.0
// specification's text and examples (https://toml.io/en/v1.0.0).

type m = map[string]any
type a = []any

func utc(y int, mo time.Month, d, h, mi, s, ns int) time.Time {
	return time.Date(y, mo, d, h, mi, s, ns, time.UTC)
}

var validCases = []struct {
	name string
	doc  string
	want m
}{
	{"empty", "", m{}},
	{"only comments and blank lines", "# a comment\n\n   \t# another\n\n", m{}},
	{"crlf line endings", "a = 1\r\nb = 2 # c\r\n\r\n[t]\r\nc = 3\r\n", m{"a": int64(1), "b": int64(2), "t": m{"c": int64(3)}}},
	{"byte order mark", "\uFEFFa = 1", m{"a": int64(1)}},
	{"no newline at the end", "a = 'x'", m{"a": "x"}},

	// Keys.
	{"bare keys", "key = 1\nbare_key = 2\nbare-key = 3\n1234 = 4\n", m{"key": int64(1), "bare_key": int64(2), "bare-key": int64(3), "1234": int64(4)}},
	{"quoted keys", `"127.0.0.1" = 1
"character encoding" = 2
"ʎǝʞ" = 3
'key2' = 4
'quoted "value"' = 5
"tab\there" = 6
`, m{"127.0.0.1": int64(1), "character encoding": int64(2), "ʎǝʞ": int64(3), "key2": int64(4), `quoted "value"`: int64(5), "tab\there": int64(6)}},
	{"empty quoted keys", "\"\" = 1\n[t]\n'' = 2\n", m{"": int64(1), "t": m{"": int64(2)}}},
	{"dotted keys", `name = "Orange"
physical.color = "orange"
physical.shape = "round"
site."google.com" = true
fruit. color = "yellow"
fruit . flavor = "banana"
3.14159 = "pi"
`, m{"name": "Orange", "physical": m{"color": "orange", "shape": "round"}, "site": m{"google.com": true},
		"fruit": m{"color": "yellow", "flavor": "banana"}, "3": m{"14159": "pi"}}},
	{"dotted keys out of order", "apple.type = 'fruit'\norange.type = 'fruit'\napple.skin = 'thin'\n",
		m{"apple": m{"type": "fruit", "skin": "thin"}, "orange": m{"type": "fruit"}}},
	{"indentation", "  [t]\n\t  k = 1\n", m{"t": m{"k": int64(1)}}},

	// Strings.
	{"basic string escapes", `s = "b\b t\t n\n f\f r\r q\" bs\\ e\u00E9 smile\U0001F600 nul\u0000"`,
		m{"s": "b\b t\t n\n f\f r\r q\" bs\\ eé smile😀 nul\x00"}},
	{"basic string with hash and unicode", `s = "# not a comment ✓ tab:	."`, m{"s": "# not a comment ✓ tab:\t."}},
	{"multi-line basic", "s = \"\"\"\nRoses are red\nViolets are blue\"\"\"", m{"s": "Roses are red\nViolets are blue"}},
	{"multi-line basic keeps crlf", "s = \"\"\"\r\none\r\ntwo\"\"\"", m{"s": "one\r\ntwo"}},
	{"line ending backslash", "s1 = \"\"\"\nThe quick brown \\\n\n\n  fox jumps over \\\n    the lazy dog.\"\"\"\n" +
		"s2 = \"\"\"\\\n       The quick brown \\\n       fox jumps over \\  \t\r\n       the lazy dog.\\\n       \"\"\"\n",
		m{"s1": "The quick brown fox jumps over the lazy dog.", "s2": "The quick brown fox jumps over the lazy dog."}},
	{"quotes inside multi-line basic", `s4 = """Here are two quotation marks: "". Simple enough."""
s5 = """Here are three quotation marks: ""\"."""
s7 = """"This," she said, "is just a pointless statement.""""
s8 = """a"""""
`, m{"s4": `Here are two quotation marks: "". Simple enough.`, "s5": `Here are three quotation marks: """.`,
		"s7": `"This," she said, "is just a pointless statement."`, "s8": `a""`}},
	{"literal strings", `winpath = 'C:\Users\nodejs\templates'
winpath2 = '\\ServerX\admin$\system32\'
quoted = 'Tom "Dubs" Preston-Werner'
regex = '<\i\c*\s*>'
`, m{"winpath": `C:\Users\nodejs\templates`, "winpath2": `\\ServerX\admin$\system32\`, "quoted": `Tom "Dubs" Preston-Werner`, "regex": `<\i\c*\s*>`}},
	{"multi-line literal", "regex2 = '''I [dw]on't need \\d{2} apples'''\nlines = '''\nThe first newline is\ntrimmed in raw strings.\n   All other whitespace\n   is preserved.\n'''\n" +
		"quot15 = '''Here are fifteen quotation marks: \"\"\"\"\"\"\"\"\"\"\"\"\"\"\"'''\nstr = ''''That,' she said, 'is still pointless.''''\n",
		m{"regex2": `I [dw]on't need \d{2} apples`, "lines": "The first newline is\ntrimmed in raw strings.\n   All other whitespace\n   is preserved.\n",
			"quot15": `Here are fifteen quotation marks: """""""""""""""`, "str": `'That,' she said, 'is still pointless.'`}},
	{"empty strings", `a = ""
b = ''
c = """"""
d = ''''''
`, m{"a": "", "b": "", "c": "", "d": ""}},

	// Integers.
	{"integers", `int1 = +99
int2 = 42
int3 = 0
int4 = -17
int5 = 1_000
int6 = 5_349_221
int8 = 1_2_3_4_5
zero1 = +0
zero2 = -0
max = 9223372036854775807
min = -9223372036854775808
hex1 = 0xDEADBEEF
hex2 = 0xdead_beef
hex3 = 0x00ff
oct1 = 0o01234567
oct2 = 0o755
bin1 = 0b11010110
hexmax = 0x7fffffffffffffff
`, m{"int1": int64(99), "int2": int64(42), "int3": int64(0), "int4": int64(-17), "int5": int64(1000), "int6": int64(5349221), "int8": int64(12345),
		"zero1": int64(0), "zero2": int64(0), "max": int64(math.MaxInt64), "min": int64(math.MinInt64),
		"hex1": int64(0xdeadbeef), "hex2": int64(0xdeadbeef), "hex3": int64(255), "oct1": int64(0o1234567), "oct2": int64(0o755), "bin1": int64(0b11010110),
		"hexmax": int64(math.MaxInt64)}},

	// Floats.
	{"floats", `flt1 = +1.0
flt2 = 3.1415
flt3 = -0.01
flt4 = 5e+22
flt5 = 1e06
flt6 = -2E-2
flt7 = 6.626e-34
flt8 = 224_617.445_991_228
flt9 = 1e1_0
zero = -0.0
small = 1e-400
sf1 = inf
sf2 = +inf
sf3 = -inf
`, m{"flt1": 1.0, "flt2": 3.1415, "flt3": -0.01, "flt4": 5e22, "flt5": 1e6, "flt6": -2e-2, "flt7": 6.626e-34, "flt8": 224617.445991228, "flt9": 1e10,
		"zero": math.Copysign(0, -1), "small": 0.0, "sf1": math.Inf(1), "sf2": math.Inf(1), "sf3": math.Inf(-1)}},
	{"nan", "sf4 = nan\nsf5 = +nan\nsf6 = -nan\n", m{"sf4": math.NaN(), "sf5": math.NaN(), "sf6": math.NaN()}},

	// Booleans.
	{"booleans", "bool1 = true\nbool2 = false\n", m{"bool1": true, "bool2": false}},

	// Date-times.
	{"offset date-times", `odt1 = 1979-05-27T07:32:00Z
odt2 = 1979-05-27T00:32:00-07:00
odt3 = 1979-05-27T00:32:00.999999-07:00
odt4 = 1979-05-27 07:32:00Z
odt5 = 1979-05-27t07:32:00z
odt6 = 1979-05-27T07:32:00.1234567891+05:30
leap = 2024-02-29T00:00:00Z
`, m{"odt1": utc(1979, 5, 27, 7, 32, 0, 0), "odt2": utc(1979, 5, 27, 7, 32, 0, 0), "odt3": utc(1979, 5, 27, 7, 32, 0, 999999000),
		"odt4": utc(1979, 5, 27, 7, 32, 0, 0), "odt5": utc(1979, 5, 27, 7, 32, 0, 0), "odt6": utc(1979, 5, 27, 2, 2, 0, 123456789),
		"leap": utc(2024, 2, 29, 0, 0, 0, 0)}},
	{"local date-times, dates and times", `ldt1 = 1979-05-27T07:32:00
ldt2 = 1979-05-27 00:32:00.999999
ld1 = 1979-05-27
ld2 = 2000-02-29 # a comment after a date
lt1 = 07:32:00
lt2 = 00:32:00.999999
lt3 = 23:59:60
`, m{"ldt1": LocalDateTime{LocalDate{1979, 5, 27}, LocalTime{7, 32, 0, 0}}, "ldt2": LocalDateTime{LocalDate{1979, 5, 27}, LocalTime{0, 32, 0, 999999000}},
		"ld1": LocalDate{1979, 5, 27}, "ld2": LocalDate{2000, 2, 29}, "lt1": LocalTime{7, 32, 0, 0}, "lt2": LocalTime{0, 32, 0, 999999000}, "lt3": LocalTime{23, 59, 60, 0}}},

	// Arrays.
	{"arrays", `integers = [ 1, 2, 3 ]
colors = [ "red", "yellow", "green" ]
nested_arrays_of_ints = [ [ 1, 2 ], [3, 4, 5] ]
nested_mixed_array = [ [ 1, 2 ], ["a", "b", "c"] ]
string_array = [ "all", 'strings', """are the same""", '''type''' ]
numbers = [ 0.1, 0.2, 0.5, 1, 2, 5 ]
contributors = [
  "Foo Bar <foo@example.com>",
  { name = "Baz Qux", email = "bazqux@example.com" }
]
integers2 = [
  1, 2, 3
]
integers3 = [
  1,
  2, # this is ok
]
empty = [ ]
empty2 = [
  # nothing
]
dates = [1979-05-27, 07:32:00, 1979-05-27T07:32:00Z]
`, m{"integers": a{int64(1), int64(2), int64(3)}, "colors": a{"red", "yellow", "green"},
		"nested_arrays_of_ints": a{a{int64(1), int64(2)}, a{int64(3), int64(4), int64(5)}},
		"nested_mixed_array":    a{a{int64(1), int64(2)}, a{"a", "b", "c"}},
		"string_array":          a{"all", "strings", "are the same", "type"},
		"numbers":               a{0.1, 0.2, 0.5, int64(1), int64(2), int64(5)},
		"contributors":          a{"Foo Bar <foo@example.com>", m{"name": "Baz Qux", "email": "bazqux@example.com"}},
		"integers2":             a{int64(1), int64(2), int64(3)}, "integers3": a{int64(1), int64(2)},
		"empty": a{}, "empty2": a{},
		"dates": a{LocalDate{1979, 5, 27}, LocalTime{7, 32, 0, 0}, utc(1979, 5, 27, 7, 32, 0, 0)}}},

	// Inline tables.
	{"inline tables", `name = { first = "Tom", last = "Preston-Werner" }
point = { x = 1, y = 2 }
animal = { type.name = "pug", type.size = "small" }
empty = {}
nested = { a = { b = { c = [1, { d = 2 }] } } }
multi = { list = [
  1, 2,
], text = """two
lines""" }
`, m{"name": m{"first": "Tom", "last": "Preston-Werner"}, "point": m{"x": int64(1), "y": int64(2)},
		"animal": m{"type": m{"name": "pug", "size": "small"}}, "empty": m{},
		"nested": m{"a": m{"b": m{"c": a{int64(1), m{"d": int64(2)}}}}},
		"multi":  m{"list": a{int64(1), int64(2)}, "text": "two\nlines"}}},

	// Tables.
	{"tables", `[table-1]
key1 = "some string"
key2 = 123

[table-2]
key1 = "another string"

[dog."tater.man"]
type.name = "pug"

[a.b.c]
[ d.e.f ]
[ g .  h  . i ]
[ j . "ʞ" . 'l' ]
`, m{"table-1": m{"key1": "some string", "key2": int64(123)}, "table-2": m{"key1": "another string"},
		"dog": m{"tater.man": m{"type": m{"name": "pug"}}},
		"a":   m{"b": m{"c": m{}}}, "d": m{"e": m{"f": m{}}}, "g": m{"h": m{"i": m{}}}, "j": m{"ʞ": m{"l": m{}}}}},
	{"super-table after its sub-table", "[x.y.z.w]\n[x]\nk = 1\n[x.y]\n", m{"x": m{"k": int64(1), "y": m{"z": m{"w": m{}}}}}},
	{"sub-tables of a table defined by dotted keys", `[fruit]
apple.color = "red"
apple.taste.sweet = true

[fruit.apple.texture]
smooth = true

[[fruit.apple.seeds]]
size = 2
`, m{"fruit": m{"apple": m{"color": "red", "taste": m{"sweet": true}, "texture": m{"smooth": true}, "seeds": a{m{"size": int64(2)}}}}}},
	{"dotted keys define an implicit table", "[a.b.c]\nz = 9\n[a]\nb.d = 1\n", m{"a": m{"b": m{"c": m{"z": int64(9)}, "d": int64(1)}}}},

	// Arrays of tables.
	{"arrays of tables", `[[products]]
name = "Hammer"
sku = 738594937

[[products]]  # empty table within the array

[[products]]
name = "Nail"
sku = 284758393
color = "gray"
`, m{"products": a{m{"name": "Hammer", "sku": int64(738594937)}, m{}, m{"name": "Nail", "sku": int64(284758393), "color": "gray"}}}},
	{"nested arrays of tables", `[[fruits]]
name = "apple"

[fruits.physical]  # subtable
color = "red"
shape = "round"

[[fruits.varieties]]  # nested array of tables
name = "red delicious"

[[fruits.varieties]]
name = "granny smith"

[[fruits]]
name = "banana"

[[fruits.varieties]]
name = "plantain"
`, m{"fruits": a{
		m{"name": "apple", "physical": m{"color": "red", "shape": "round"}, "varieties": a{m{"name": "red delicious"}, m{"name": "granny smith"}}},
		m{"name": "banana", "varieties": a{m{"name": "plantain"}}},
	}}},
	{"codex hook groups", `[[hooks.PreToolUse]]
matcher = "^Bash$"
[[hooks.PreToolUse.hooks]]
type = "command"
command = "python3 check.py"
timeout = 30
[[hooks.PreToolUse.hooks]]
command = "second"
[[hooks.PreToolUse]]
[[hooks.PreToolUse.hooks]]
command = "third"
`, m{"hooks": m{"PreToolUse": a{
		m{"matcher": "^Bash$", "hooks": a{m{"type": "command", "command": "python3 check.py", "timeout": int64(30)}, m{"command": "second"}}},
		m{"hooks": a{m{"command": "third"}}},
	}}}},
}

func TestDecodeValid(t *testing.T) {
	for _, c := range validCases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Decode([]byte(c.doc))
			if err != nil {
				t.Fatalf("Decode: %v\n%s", err, c.doc)
			}
			if diff := cmp.Diff(c.want, got, cmpopts.EquateNaNs()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestDecodeOffsets: offset date-times keep their offset, not just the
// instant; -0.0 keeps its sign.
func TestDecodeOffsets(t *testing.T) {
	got, err := Decode([]byte("a = 1979-05-27T00:32:00-07:00\nb = 1979-05-27T00:32:00Z\nc = 1979-05-27T00:32:00+00:00\nz = -0.0\n"))
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]int{"a": -7 * 3600, "b": 0, "c": 0} {
		if _, off := got[key].(time.Time).Zone(); off != want {
			t.Errorf("%s: offset %d, want %d", key, off, want)
		}
	}
	if got["a"].(time.Time).Hour() != 0 {
		t.Errorf("a = %v: the wall clock changed", got["a"])
	}
	if !math.Signbit(got["z"].(float64)) {
		t.Error("-0.0 lost its sign")
	}
}

var invalidCases = []struct {
	name      string
	doc       string
	line, col int
	msg       string
}{
	// Structure.
	{"key without value", "a = 1\nkey = # INVALID\n", 2, 7, "expected a value"},
	{"value on the next line", "key =\n1\n", 1, 6, "expected a value"},
	{"two pairs on a line", `first = "Tom" last = "Preston-Werner"`, 1, 15, "expected the end of the line, found 'l'"},
	{"bare key empty", "= \"no key name\"\n", 1, 1, "expected a key, found '='"},
	{"key without equals", "a\n", 1, 2, "expected '=' after the key"},
	{"space in bare key", "a b = 1\n", 1, 3, "expected '='"},
	{"multi-line key", "\"\"\"k\"\"\" = 1\n", 1, 1, "multi-line string cannot be a key"},
	{"invalid character in key", "a! = 1\n", 1, 2, "expected '='"},
	{"invalid UTF-8", "a = 1\nb = \"\xff\"\n", 2, 6, "invalid UTF-8"},
	{"bare carriage return", "a = 1\rb = 2\n", 1, 6, "expected the end of the line, found control character U+000D"},
	{"control character in comment", "a = 1 # bell\a\n", 1, 13, "control character U+0007 in a comment"},
	{"DEL in comment", "# \x7f\n", 1, 3, "control character U+007F"},

	// Redefinitions.
	{"duplicate key", "name = \"Tom\"\nname = \"Pradyun\"\n", 2, 1, "name is already defined"},
	{"bare and quoted key are the same", "spelling = \"favorite\"\n\"spelling\" = \"favourite\"\n", 2, 1, "spelling is already defined"},
	{"integer made a table", "fruit.apple = 1\nfruit.apple.smooth = true\n", 2, 1, "fruit.apple is already defined as an integer, not a table"},
	{"table defined twice", "[fruit]\napple = \"red\"\n\n[fruit]\norange = \"orange\"\n", 4, 1, "table [fruit] is defined twice"},
	{"table over a key", "[fruit]\napple = \"red\"\n\n[fruit.apple]\ntexture = \"smooth\"\n", 4, 1, "fruit.apple is already defined as a string"},
	{"header over dotted keys", "[fruit]\napple.color = \"red\"\napple.taste.sweet = true\n[fruit.apple]\n", 4, 1, "table [fruit.apple] was already defined by dotted keys"},
	{"header over nested dotted keys", "[fruit]\napple.color = \"red\"\napple.taste.sweet = true\n[fruit.apple.taste]\n", 4, 1, "table [fruit.apple.taste] was already defined by dotted keys"},
	{"header over implicit table defined by dotted keys", "[a.b.c]\n[a]\nb.d = 1\n[a.b]\n", 4, 1, "table [a.b] was already defined by dotted keys"},
	{"dotted keys into a header table", "[a.b.c]\nz = 9\n[a]\nb.c.t = 1\n", 4, 1, "table a.b.c was defined by a [header]"},
	{"dotted keys into an array of tables", "[[a.b]]\n[a]\nb.y = 2\n", 3, 1, "a.b is an array of tables"},
	{"extend inline table with dotted key", "[product]\ntype = { name = \"Nail\" }\ntype.edible = false\n", 3, 1, "product.type is an inline table, which cannot be extended"},
	{"extend inline table with header", "a = { b = 1 }\n[a.c]\n", 2, 1, "a is an inline table"},
	{"redefine inline table with header", "a = {}\n[a]\n", 2, 1, "table [a] was already defined as an inline table"},
	{"inline table over dotted table", "[product]\ntype.name = \"Nail\"\ntype = { edible = false }\n", 3, 1, "product.type is already defined (as a table)"},
	{"inline table duplicate key", "a = { b = 1, b = 2 }\n", 1, 14, "a.b is already defined"},
	{"inline table nested extension", "a = { b = { c = 1 }, b.d = 2 }\n", 1, 22, "a.b is an inline table"},
	{"append to static array", "fruits = []\n[[fruits]]\n", 2, 1, "fruits is a static array"},
	{"array of tables after its sub-table", "[fruit.physical]\ncolor = \"red\"\n[[fruit]]\nname = \"apple\"\n", 3, 1, "[[fruit]]: fruit is already a table"},
	{"table over array of tables", "[[fruits]]\nname = \"apple\"\n[[fruits.varieties]]\nname = \"red delicious\"\n[fruits.varieties]\nname = \"granny smith\"\n", 5, 1, "fruits.varieties is already an array of tables"},
	{"array of tables over table", "[[fruits]]\n[fruits.physical]\ncolor = \"red\"\n[[fruits.physical]]\ncolor = \"green\"\n", 4, 1, "[[fruits.physical]]: fruits.physical is already a table"},
	{"header into a static array", "a = [{ b = 1 }]\n[a.c]\n", 2, 1, "a is already defined as an array, not a table"},
	{"header into a value", "a = 1\n[a.b]\n", 2, 1, "a is already defined as an integer"},

	// Headers.
	{"empty header", "[]\n", 1, 2, "expected a key, found ']'"},
	{"unclosed header", "[a\nb = 1\n", 1, 3, "expected ']' to close the table header"},
	{"unclosed array header", "[[a]\n", 1, 4, "expected ']]'"},
	{"spaced array header", "[ [a] ]\n", 1, 3, "expected a key, found '['"},
	{"empty key part", "[a..b]\n", 1, 4, "expected a key, found '.'"},
	{"trailing dot", "[a.]\n", 1, 4, "expected a key, found ']'"},
	{"text after header", "[a] b = 1\n", 1, 5, "expected the end of the line"},

	// Strings.
	{"reserved escape", `s = "\x41"`, 1, 6, `invalid escape sequence \x`},
	{"escaped space", `s = "a\ b"`, 1, 7, "invalid escape sequence"},
	{"surrogate escape", `s = "\uD800"`, 1, 6, `\uD800 is not a Unicode scalar value`},
	{"escape past Unicode", `s = "\U00110000"`, 1, 6, "not a Unicode scalar value"},
	{"short unicode escape", `s = "\u12"`, 1, 6, `\u needs 4 hexadecimal digits`},
	{"newline in basic string", "s = \"one\ntwo\"\n", 1, 5, "unterminated string"},
	{"control character in string", "s = \"a\x01b\"", 1, 7, "control character U+0001 in a string must be escaped"},
	{"unterminated basic string", "s = \"abc", 1, 5, "unterminated string"},
	{"unterminated literal string", "a = 1\ns = 'abc", 2, 5, "unterminated literal string"},
	{"newline in literal string", "s = 'a\nb'", 1, 5, "unterminated literal string"},
	{"unterminated multi-line string", "s = \"\"\"\nabc\n\n", 1, 5, "unterminated multi-line string"},
	{"three quotes inside", "s = \"\"\"Here are three quotation marks: \"\"\".\"\"\"", 1, 43, "expected the end of the line, found '.'"},
	{"six quotes at the end", "s = '''abc''''''", 1, 11, "three or more quotes in a row"},
	{"bare CR in multi-line string", "s = \"\"\"a\rb\"\"\"", 1, 9, "control character U+000D"},
	{"control character in multi-line literal", "s = '''a\x00b'''", 1, 9, "control character U+0000"},
	{"invalid escape in multi-line", "s = \"\"\"\n\\q\"\"\"", 2, 1, `invalid escape sequence \q`},

	// Numbers.
	{"leading zeros", "a = 012\n", 1, 5, "leading zeros are not allowed"},
	{"leading zero float", "a = 01.5\n", 1, 5, "leading zeros"},
	{"double underscore", "a = 1__000\n", 1, 5, "invalid number"},
	{"leading underscore", "a = _1\n", 1, 5, "expected a value, found '_'"},
	{"trailing underscore", "a = 1_\n", 1, 5, "invalid number"},
	{"underscore after prefix", "a = 0x_1\n", 1, 5, "invalid number"},
	{"signed hex", "a = +0xFF\n", 1, 5, "invalid number"},
	{"upper-case prefix", "a = 0XFF\n", 1, 5, "invalid number"},
	{"bad octal digit", "a = 0o8\n", 1, 5, "invalid number"},
	{"empty hex", "a = 0x\n", 1, 5, "invalid number"},
	{"integer overflow", "a = 9223372036854775808\n", 1, 5, "does not fit in 64 bits"},
	{"negative overflow", "a = -9223372036854775809\n", 1, 5, "does not fit in 64 bits"},
	{"hex overflow", "a = 0x8000000000000000\n", 1, 5, "does not fit in 64 bits"},
	{"float without leading digit", "invalid_float_1 = .7\n", 1, 19, "expected a value, found '.'"},
	{"float without trailing digit", "invalid_float_2 = 7.\n", 1, 19, "invalid number \"7.\""},
	{"float dot before exponent", "invalid_float_3 = 3.e+20\n", 1, 19, "invalid number"},
	{"empty exponent", "a = 1e\n", 1, 5, "invalid number"},
	{"float overflow", "a = 1e400\n", 1, 5, "out of range"},
	{"capitalised inf", "a = Inf\n", 1, 5, "expected a value, found 'I'"},
	{"infinity", "a = infinity\n", 1, 5, "invalid number"},
	{"capitalised boolean", "a = True\n", 1, 5, "expected a value, found 'T'"},
	{"truncated boolean", "a = fals\n", 1, 5, "booleans are true and false"},

	// Date-times.
	{"february 30", "a = 2024-02-30\n", 1, 5, "February has no day 30"},
	{"february 29 of a common year", "a = 2023-02-29T00:00:00Z\n", 1, 5, "February has no day 29"},
	{"month 13", "a = 1979-13-01\n", 1, 5, "month 13"},
	{"day 0", "a = 1979-01-00\n", 1, 5, "no day 00"},
	{"hour 24", "a = 24:00:00\n", 1, 5, "invalid time 24:00:00"},
	{"minute 60", "a = 1979-05-27T07:60:00\n", 1, 16, "invalid time"},
	{"second 61", "a = 07:32:61\n", 1, 5, "invalid time"},
	{"no seconds", "a = 07:32\n", 1, 5, "invalid time (want HH:MM:SS)"},
	{"one-digit month", "a = 1979-5-27\n", 1, 5, "invalid date"},
	{"T without time", "a = 1979-05-27T\n", 1, 16, "invalid time"},
	{"bad offset", "a = 1979-05-27T07:32:00+24:00\n", 1, 24, "invalid time offset"},
	{"short offset", "a = 1979-05-27T07:32:00+07\n", 1, 24, "invalid time offset"},
	{"dot without fraction", "a = 07:32:00.\n", 1, 13, "'.' must be followed by digits"},
	{"offset on a local time", "a = 07:32:00Z\n", 1, 13, "expected the end of the line, found 'Z'"},
	{"five-digit year", "a = 10000-01-01\n", 1, 5, "invalid number"},

	// Arrays and inline tables.
	{"array double comma", "a = [1,,2]\n", 1, 8, "expected a value, found ','"},
	{"array only comma", "a = [,]\n", 1, 6, "expected a value, found ','"},
	{"array missing comma", "a = [1 2]\n", 1, 8, "expected ',' or ']'"},
	{"unterminated array", "a = [1,\n2,\n", 1, 5, "unterminated array"},
	{"inline table trailing comma", "a = { b = 1, }\n", 1, 14, "trailing comma"},
	{"inline table newline", "a = { b = 1,\nc = 2 }\n", 1, 13, "expected a key, found end of line"},
	{"inline table newline before brace", "a = { b = 1\n}\n", 1, 12, "expected ',' or '}' in an inline table, found end of line"},
	{"unterminated inline table", "a = { b = 1", 1, 5, "unterminated inline table"},
	{"inline table comment", "a = { b = 1 # no\n}\n", 1, 13, "expected ',' or '}'"},
	{"inline table double comma", "a = { b = 1,, c = 2 }\n", 1, 13, "expected a key, found ','"},

	// Limits.
	{"arrays nested too deeply", "a = " + strings.Repeat("[", 300) + strings.Repeat("]", 300), 1, 261, "nest more than 256 deep"},
	{"inline tables nested too deeply", "a = " + strings.Repeat("{b=", 300) + "1" + strings.Repeat("}", 300), 1, 773, "nest more than 256 deep"},
	{"key too long", strings.Repeat("a.", 300) + "a = 1", 1, 514, "more than 256 parts"},
	{"dotted tables too deep", "[" + strings.Repeat("a.", 200) + "a]\n" + strings.Repeat("b.", 100) + "b = 1", 2, 1, "nest more than 256 deep"},
}

func TestDecodeInvalid(t *testing.T) {
	for _, c := range invalidCases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Decode([]byte(c.doc))
			if err == nil {
				t.Fatalf("decoded %q to %v; want an error", c.doc, got)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T %v is not an *Error", err, err)
			}
			if e.Line != c.line || e.Column != c.col || !strings.Contains(e.Msg, c.msg) {
				t.Errorf("error %q; want %d:%d: ...%s...", err, c.line, c.col, c.msg)
			}
		})
	}
}

func TestErrorFormat(t *testing.T) {
	_, err := Decode([]byte("a = 1\n\n[t]\nk = \"ok\"\nk = 2\n"))
	if err == nil || err.Error() != "5:1: t.k is already defined (as a string)" {
		t.Errorf("error %v", err)
	}
	// Columns count characters, not bytes.
	_, err = Decode([]byte("\"ключ\" = \"значение\" x\n"))
	if e := (*Error)(nil); !errors.As(err, &e) || e.Column != 21 {
		t.Errorf("error %v, want column 21", err)
	}
}

// TestDecodePrefixes: every prefix of every valid document decodes or
// fails with a positioned error, and never panics.
func TestDecodePrefixes(t *testing.T) {
	for _, c := range validCases {
		for i := range len(c.doc) {
			_, err := Decode([]byte(c.doc[:i]))
			var e *Error
			if err != nil && (!errors.As(err, &e) || e.Line < 1 || e.Column < 1) {
				t.Fatalf("%s[:%d]: error %v", c.name, i, err)
			}
		}
	}
}

func TestLocalStrings(t *testing.T) {
	dt := LocalDateTime{LocalDate{1979, 5, 27}, LocalTime{7, 32, 0, 999000000}}
	if got := dt.String(); got != "1979-05-27T07:32:00.999000000" {
		t.Errorf("String() = %q", got)
	}
	if got := (LocalTime{Hour: 1, Minute: 2, Second: 3}).String(); got != "01:02:03" {
		t.Errorf("String() = %q", got)
	}
}
