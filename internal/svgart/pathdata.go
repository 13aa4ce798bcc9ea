package svgart

import (
	"fmt"
	"strings"

	"github.com/tdewolff/canvas"
)

// pathArity is how many numbers each path command takes.
var pathArity = [128]int8{
	'M': 2, 'm': 2, 'L': 2, 'l': 2, 'H': 1, 'h': 1, 'V': 1, 'v': 1,
	'C': 6, 'c': 6, 'S': 4, 's': 4, 'Q': 4, 'q': 4, 'T': 2, 't': 2,
	'A': 7, 'a': 7, 'Z': -1, 'z': -1,
}

// countPathCommands checks path data against SVG's grammar and counts its
// commands (an implicit repetition counts as one more), without building
// anything: the count is checked against MaxPathCommands before
// canvas.ParseSVGPath allocates the path. It also refuses what
// canvas.ParseSVGPath would misread or choke on (leading commas, numbers
// canvas would read differently, such as "1e999" or hexadecimal).
func countPathCommands(d string) (int, error) {
	i := skipSpace(d, 0)
	if i == len(d) {
		return 0, nil
	}
	if d[i] != 'M' && d[i] != 'm' {
		return 0, fmt.Errorf("path data must start with a moveto (M), not %q", truncate(d[i:]))
	}
	count := 0
	var cmd byte
	for i < len(d) {
		c := d[i]
		if c < 128 && pathArity[c] != 0 {
			cmd = c
			i = skipSpace(d, i+1)
			if pathArity[c] < 0 { // Z takes no numbers
				count++
				i = skipSep(d, i)
				continue
			}
		} else if pathArity[cmd] < 0 {
			return 0, fmt.Errorf("path data has %q after a closepath (Z)", truncate(d[i:]))
		}
		n, err := pathArgs(d, &i, cmd)
		if err != nil {
			return 0, err
		}
		count += n
		if count > MaxPathCommands {
			return count, nil // the caller reports the limit
		}
	}
	return count, nil
}

// pathArgs reads one set of arguments of cmd at d[*i:] and the separator
// after it; it returns 1 (one command).
func pathArgs(d string, i *int, cmd byte) (int, error) {
	for k := 0; k < int(pathArity[cmd]); k++ {
		if (cmd == 'A' || cmd == 'a') && (k == 3 || k == 4) {
			if *i >= len(d) || (d[*i] != '0' && d[*i] != '1') {
				return 0, fmt.Errorf("the arc flags of path command %c must be 0 or 1", cmd)
			}
			*i = skipSep(d, *i+1)
			continue
		}
		_, n, err := scanNumber(d[*i:])
		if err != nil {
			return 0, err
		}
		if n == 0 {
			if *i >= len(d) {
				return 0, fmt.Errorf("path command %c is missing numbers at the end", cmd)
			}
			return 0, fmt.Errorf("path command %c expects a number at %q", cmd, truncate(d[*i:]))
		}
		*i = skipSep(d, *i+n)
	}
	return 1, nil
}

// skipSpace skips white space only.
func skipSpace(d string, i int) int {
	for i < len(d) && (d[i] == ' ' || d[i] == '\t' || d[i] == '\n' || d[i] == '\r' || d[i] == '\f') {
		i++
	}
	return i
}

// skipSep skips white space with at most one comma.
func skipSep(d string, i int) int {
	i = skipSpace(d, i)
	if i < len(d) && d[i] == ',' {
		i = skipSpace(d, i+1)
	}
	return i
}

// parsePathData builds the path of a d attribute, after checking it.
func parsePathData(d string) (*canvas.Path, int, error) {
	n, err := countPathCommands(d)
	if err != nil || n == 0 || n > MaxPathCommands {
		return nil, n, err
	}
	p, err := canvas.ParseSVGPath(strings.TrimSpace(d))
	if err != nil {
		return nil, n, err
	}
	return p, n, nil
}
