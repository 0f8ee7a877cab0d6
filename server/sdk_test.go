package server

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The official OpenAI SDK for JavaScript and LangChain.js's
// OpenAIEmbeddings use the server as their embedding endpoint: the SDK
// asks for base64 vectors by default and decodes them, lists the models;
// LangChain embeds documents and a query. npm installs them outside the
// repository ($GOCHUNK_NPM_DIR, else the user's cache directory); the test
// skips where node or npm is missing.
func TestOpenAIClients(t *testing.T) {
	node, err1 := exec.LookPath("node")
	npm, err2 := exec.LookPath("npm")
	if err1 != nil || err2 != nil {
		t.Skip("skipping: node and npm are needed to run the OpenAI SDK and LangChain.js (apt-get install nodejs npm)")
	}
	dir := os.Getenv("GOCHUNK_NPM_DIR")
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			t.Skipf("skipping: no cache directory for npm packages: %v", err)
		}
		dir = filepath.Join(cache, "gochunk-tests", "npm-openai")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@langchain", "openai", "package.json")); err != nil {
		cmd := exec.Command(npm, "install", "--prefix", dir, "--no-audit", "--no-fund", "--ignore-scripts", "openai@5", "@langchain/openai@0", "@langchain/core@0")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Skipf("skipping: npm could not install the OpenAI SDK and LangChain.js: %v\n%s", err, out)
		}
	}
	_, ts := newTest(t, nil)
	script := filepath.Join(dir, "gochunk-clients.mjs")
	os.WriteFile(script, []byte(`import OpenAI from "openai";
import { OpenAIEmbeddings } from "@langchain/openai";
const baseURL = process.argv[2] + "/v1";
const client = new OpenAI({ baseURL, apiKey: "none" });
const r = await client.embeddings.create({ model: "lexical", input: ["hello world", "a second text"] });
const floats = await client.embeddings.create({ model: "lexical", input: "hello world", encoding_format: "float" });
const models = [];
for await (const m of client.models.list()) models.push(m.id);
const lc = new OpenAIEmbeddings({ model: "lexical", apiKey: "none", configuration: { baseURL } });
const docs = await lc.embedDocuments(["first document", "second document"]);
const query = await lc.embedQuery("a question");
console.log(JSON.stringify({ n: r.data.length, dim: r.data[0].embedding.length, first: r.data[0].embedding.slice(0, 4),
  float: floats.data[0].embedding.slice(0, 4), usage: r.usage, models, docs: docs.length, docDim: docs[0].length, queryDim: query.length }));
`), 0o644)
	out, err := exec.Command(node, script, ts.URL).CombinedOutput()
	if err != nil {
		t.Fatalf("clients: %v\n%s", err, out)
	}
	var got struct {
		N, Dim, Docs, DocDim, QueryDim int
		First, Float                   []float64
		Usage                          struct {
			PromptTokens int `json:"prompt_tokens"`
		}
		Models []string
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if got.N != 2 || got.Dim == 0 || got.Docs != 2 || got.DocDim != got.Dim || got.QueryDim != got.Dim || len(got.Models) == 0 || got.Usage.PromptTokens == 0 {
		t.Errorf("clients saw %+v", got)
	}
	for i := range got.First {
		if d := got.First[i] - got.Float[i]; d > 1e-6 || d < -1e-6 {
			t.Errorf("base64 and float vectors differ: %v %v", got.First, got.Float)
			break
		}
	}
}
