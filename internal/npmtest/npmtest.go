// Package npmtest installs npm packages that tests run as references
// (tokenizers, SDKs, database servers) outside the repository, once per
// machine, and skips the test, saying why, where node or npm is missing.
package npmtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gochunk/gochunk/internal/testnote"
)

// Install makes sure the packages (name@version) are installed in the
// directory named name under $GOCHUNK_NPM_DIR, else under the user's cache
// directory (gochunk-tests/NAME), and returns the path of node and that
// directory. It skips the test where node or npm is missing or npm cannot
// install them.
func Install(t testing.TB, name string, packages ...string) (node, dir string) {
	t.Helper()
	node, err1 := exec.LookPath("node")
	npm, err2 := exec.LookPath("npm")
	if err1 != nil || err2 != nil {
		t.Skipf("skipping: node and npm are needed to run %s (apt-get install nodejs npm)", strings.Join(packages, ", "))
	}
	root := os.Getenv("GOCHUNK_NPM_DIR")
	if root == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			t.Skipf("skipping: no cache directory for npm packages: %v", err)
		}
		root = filepath.Join(cache, "gochunk-tests")
	}
	dir = filepath.Join(root, name)
	stamp := filepath.Join(dir, ".installed")
	if b, err := os.ReadFile(stamp); err == nil && string(b) == strings.Join(packages, " ") {
		return node, dir
	}
	t.Logf("installing %s with npm into %s: a download the first time on this machine, reused after", strings.Join(packages, ", "), dir)
	testnote.Say("%s: installing %s with npm into %s (first run only)", t.Name(), strings.Join(packages, ", "), dir)
	cmd := exec.Command(npm, append([]string{"install", "--prefix", dir, "--no-audit", "--no-fund", "--ignore-scripts"}, packages...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("skipping: npm could not install %s: %v\n%s", strings.Join(packages, ", "), err, out)
	}
	os.WriteFile(stamp, []byte(strings.Join(packages, " ")), 0o644)
	return node, dir
}
