package layout

import (
	"fmt"
	"html"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A second held-out set of tables, made after the rules of
// TestPDFTablesGroundTruth were written and scored only before and after
// a round of work on them (its documents are not looked at; only its
// summary is logged): other fonts, sizes, page widths, cell paddings and
// alignments, number formats (accounts' negatives in brackets, decimal
// commas, dates, percentages with a space), groups of rows under a label
// spanning them, captions, column rules only, a frame only, and the same
// documents exported by LibreOffice Writer (another producer than
// Chromium's Skia). Run with GOCHUNK_GT_HELDOUT=1.

// thStyle is a way of printing the held-out set's tables.
type thStyle struct {
	name   string
	font   string
	size   int    // points
	page   string // CSS @page size
	css    string
	office bool   // exported by LibreOffice instead of Chromium
	attr   string // the table element's attributes (the third set's)
}

var thStyles = []thStyle{
	{name: "condensed-grid-off", font: `"DejaVu Sans Condensed", sans-serif`, size: 9, page: "A4", css: `table{border-collapse:collapse} td,th{border:0.5px solid #444;padding:1px 4px} td.num{text-align:right}`},
	{name: "mono-frame", font: `"DejaVu Sans Mono", monospace`, size: 9, page: "letter", css: `table{border:1px solid #000;border-collapse:collapse} td,th{padding:2px 6px} td.num{text-align:right}`},
	{name: "serif-col-rules", font: `"DejaVu Serif Condensed", serif`, size: 11, page: "A5", css: `table{border-collapse:collapse} td+td,th+th{border-left:1px solid #777} td,th{padding:2px 5px} td.num{text-align:center}`},
	{name: "sans-header-band", font: `"DejaVu Sans", sans-serif`, size: 12, page: "letter landscape", css: `table{border-collapse:collapse} thead th{background:#dde;padding:4px 9px;text-align:center} td{padding:3px 9px;vertical-align:top} td.num{text-align:right}`},
	{name: "light-double", font: `"DejaVu Sans Light", sans-serif`, size: 10, page: "A4", css: `table{border-collapse:collapse;border-top:3px double #000;border-bottom:3px double #000} thead th{border-bottom:1px solid #000} td,th{padding:2px 12px} td.num{text-align:right}`},
	{name: "borderless-spaced", font: `"DejaVu Serif", serif`, size: 10, page: "A4", css: `table{border-spacing:14px 1px} td,th{padding:0;text-align:left} td.num{text-align:right}`},
	{name: "borderless-tight-small", font: `"DejaVu Sans", sans-serif`, size: 8, page: "A4", css: `table{border-collapse:collapse} td,th{padding:0 3px} th{text-align:left} td.num{text-align:right}`},
	{name: "office-grid", office: true, font: `"DejaVu Sans", sans-serif`, size: 10, page: "A4", css: ``},
	{name: "office-plain", office: true, font: `"DejaVu Serif", serif`, size: 11, page: "A4", css: ``},
}

var thSeeds = []uint64{101, 202}

func thNumber(rng *rand.Rand, format int) string {
	v := rng.Float64() * 5000
	switch format {
	case 0: // accounts: thousands, negatives in brackets
		if rng.IntN(3) == 0 {
			return fmt.Sprintf("(%d,%03d)", int(v)/1000+1, int(v)%1000)
		}
		return fmt.Sprintf("%d,%03d", int(v)/1000+1, int(v)%1000)
	case 1: // decimal commas
		return strings.ReplaceAll(fmt.Sprintf("%.2f", v/100), ".", ",")
	case 2: // percentages with a space, signed
		return fmt.Sprintf("%+.1f %%", v/100-25)
	case 3: // dates
		return fmt.Sprintf("2024-%02d-%02d", 1+rng.IntN(12), 1+rng.IntN(28))
	case 4: // small counts, some missing
		if rng.IntN(6) == 0 {
			return "n/a"
		}
		return fmt.Sprintf("%d", rng.IntN(60))
	}
	return fmt.Sprintf("€%.1fm", v/300)
}

// thTable writes a table: figures by label (one number format a
// column), short texts, groups of rows under a label spanning them
// (rowspan), wrapping cells; some with a caption.
func thTable(rng *rand.Rand, g *gtText, border bool) string {
	if border {
		return thTableAttr(rng, g, `border="1" cellpadding="3"`)
	}
	return thTableAttr(rng, g, "")
}

// thTableAttr is thTable with the table element's attributes given.
func thTableAttr(rng *rand.Rand, g *gtText, attr string) string {
	var sb strings.Builder
	if attr != "" {
		fmt.Fprintf(&sb, "<table %s>", attr)
	} else {
		sb.WriteString("<table>")
	}
	if rng.IntN(3) == 0 {
		fmt.Fprintf(&sb, "<caption>Table %d. %s</caption>", 1+rng.IntN(9), html.EscapeString(tgPhrase(rng, g, 2, 5)))
	}
	kind := rng.IntN(4)
	cols := 2 + rng.IntN(6)
	if kind == 2 {
		cols = max(cols, 3)
	}
	formats := make([]int, cols)
	for c := range formats {
		formats[c] = rng.IntN(6)
	}
	rows := 3 + rng.IntN(9)
	sb.WriteString("<thead><tr>")
	for range cols {
		fmt.Fprintf(&sb, "<th>%s</th>", html.EscapeString(tgPhrase(rng, g, 1, 3)))
	}
	sb.WriteString("</tr></thead><tbody>")
	for r := 0; r < rows; r++ {
		sb.WriteString("<tr>")
		first := 0
		if kind == 2 { // groups of two or three rows under one label
			if r%3 == 0 {
				span := min(2+rng.IntN(2), rows-r)
				fmt.Fprintf(&sb, `<td rowspan="%d">%s</td>`, span, html.EscapeString(tgPhrase(rng, g, 1, 2)))
				if span == 2 {
					r++ // the group's next row is written below; a third is a row of its own
					sb.WriteString(thCells(rng, g, kind, 1, cols, formats))
					sb.WriteString("</tr><tr>")
				} else {
					sb.WriteString(thCells(rng, g, kind, 1, cols, formats))
					sb.WriteString("</tr><tr>")
					sb.WriteString(thCells(rng, g, kind, 1, cols, formats))
					sb.WriteString("</tr><tr>")
					r += 2
				}
			} else {
				fmt.Fprintf(&sb, "<td>%s</td>", html.EscapeString(tgPhrase(rng, g, 1, 2)))
			}
			first = 1
		}
		sb.WriteString(thCells(rng, g, kind, first, cols, formats))
		sb.WriteString("</tr>")
	}
	sb.WriteString("</tbody></table>")
	return sb.String()
}

func thCells(rng *rand.Rand, g *gtText, kind, from, cols int, formats []int) string {
	var sb strings.Builder
	for c := from; c < cols; c++ {
		switch {
		case c == 0:
			fmt.Fprintf(&sb, "<td>%s</td>", html.EscapeString(tgPhrase(rng, g, 1, 4)))
		case kind == 1 && c == 1:
			fmt.Fprintf(&sb, `<td style="width:11em">%s</td>`, html.EscapeString(tgPhrase(rng, g, 3, 10)))
		case kind == 3 && c%2 == 1:
			fmt.Fprintf(&sb, "<td>%s</td>", html.EscapeString(tgPhrase(rng, g, 1, 2)))
		default:
			fmt.Fprintf(&sb, `<td class="num">%s</td>`, thNumber(rng, formats[c]))
		}
	}
	return sb.String()
}

// thGen makes a document of the held-out set: tables between controls.
func thGen(st thStyle, seed uint64, g *gtText) tgDoc {
	rng := rand.New(rand.NewPCG(seed, 0x5e7b))
	d := tgDoc{name: fmt.Sprintf("heldout-%s-%d", st.name, seed)}
	var sb strings.Builder
	fmt.Fprintf(&sb, `<html lang="en"><head><meta charset="utf-8"><style>@page{size:%s;margin:1.5cm}
body{font-family:%s;font-size:%dpt} table{margin:0.8em 0} caption{text-align:left;font-style:italic}
.kv span{display:inline-block;width:10em} %s</style></head><body>`, st.page, st.font, st.size, st.css)
	para := func() {
		s := g.sentence(rng, 10, 28) + " " + g.sentence(rng, 8, 22)
		d.controls = append(d.controls, s)
		fmt.Fprintf(&sb, "<p>%s</p>", html.EscapeString(s))
	}
	para()
	for i := range 4 {
		switch {
		case st.attr != "":
			sb.WriteString(thTableAttr(rng, g, st.attr))
		default:
			sb.WriteString(thTable(rng, g, st.office && st.name == "office-grid"))
		}
		switch i {
		case 0:
			sb.WriteString("<ol>")
			for range 3 {
				s := g.sentence(rng, 6, 14)
				d.controls = append(d.controls, s)
				fmt.Fprintf(&sb, "<li>%s</li>", html.EscapeString(s))
			}
			sb.WriteString("</ol>")
		case 1:
			if !st.office {
				sb.WriteString(`<div class="kv">`)
				for _, l := range []string{"Account:", "Period:", "Prepared by:"} {
					d.labels = append(d.labels, l)
					fmt.Fprintf(&sb, "<div><span>%s</span>%s</div>", l, html.EscapeString(tgPhrase(rng, g, 1, 3)))
				}
				sb.WriteString("</div>")
			}
			para()
		default:
			para()
			para()
		}
	}
	sb.WriteString("</body></html>")
	d.html = sb.String()
	return d
}

// officePDF exports page with LibreOffice Writer, or skips.
func officePDF(t *testing.T, dir, name, page string) string {
	t.Helper()
	bin, err := exec.LookPath("soffice")
	if err != nil {
		t.Skip("skipping: no LibreOffice (apt-get install libreoffice-writer)")
	}
	in := filepath.Join(dir, name+".html")
	if err := os.WriteFile(in, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--headless", "--norestore", "-env:UserInstallation=file://"+filepath.Join(dir, "lo-profile"),
		"--convert-to", "pdf:writer_web_pdf_Export", "--outdir", dir, in)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("skipping: LibreOffice cannot export here: %v %.300s", err, msg)
	}
	out := filepath.Join(dir, name+".pdf")
	if _, err := os.Stat(out); err != nil {
		t.Skipf("skipping: LibreOffice exported nothing: %v", err)
	}
	return out
}

// TestPDFTablesHeldOut scores the second held-out set (see above): its
// summary, failing where a control (prose, a list) made a table.
func TestPDFTablesHeldOut(t *testing.T) {
	if os.Getenv("GOCHUNK_GT_HELDOUT") == "" {
		t.Skip("skipping: the second held-out set of tables is scored on demand (GOCHUNK_GT_HELDOUT=1)")
	}
	g := loadGTText(t)
	dir := gtDir(t)
	var all tgScore
	look := os.Getenv("GOCHUNK_GT_LOOK") // a style whose failures are logged: no longer held out
	for _, st := range thStyles {
		var style tgScore
		for _, seed := range thSeeds {
			d := thGen(st, seed, g)
			var path string
			if st.office {
				path = officePDF(t, dir, d.name, d.html)
			} else {
				path = printPDF(t, dir, d.name, d.html)
			}
			style.add(tgScoreDoc(d, extractElements(t, path), func(f string, a ...any) {
				if st.name == look {
					t.Logf(f, a...)
				}
			}))
		}
		t.Logf("%s: %v", st.name, style)
		all.add(style)
	}
	t.Logf("second held-out set: %v", all)
	// Developed on since table50e (it is no longer held out): a floor a
	// little under its figure (50/72 at table50g's end); and a control
	// (prose, a list, labels and values) made a table is wrong in any set.
	if f := float64(all.kept) / float64(max(all.tables, 1)); f < 0.68 && look == "" {
		t.Errorf("tables kept: %.3f, below the floor 0.68", f)
	}
	if all.falseTables > 0 {
		t.Errorf("%d controls (prose, lists, labels and values) made tables", all.falseTables)
	}
}
