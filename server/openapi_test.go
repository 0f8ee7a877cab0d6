package server

import (
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gochunk/gochunk/api"
)

// The OpenAPI description documents the handlers' real types: every JSON
// field of the request and answer types (nested ones too) is a property
// of its schema, and every API operation lists the status codes the
// server answers with.
func TestOpenAPIMatchesTypes(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal(openapi, &doc); err != nil {
		t.Fatal(err)
	}
	at := func(path ...string) map[string]any {
		var v any = doc
		for _, p := range path {
			v = v.(map[string]any)[p]
		}
		return v.(map[string]any)
	}
	body := func(op ...string) map[string]any {
		return at(append(op, "content", "application/json", "schema")...)
	}
	for _, tc := range []struct {
		typ    any
		schema map[string]any
	}{
		{api.EmbedRequest{}, at("components", "schemas", "EmbedRequest")},
		{api.EmbedResponse{}, at("components", "schemas", "EmbedResponse")},
		{api.ChunkRequest{}, at("components", "schemas", "ChunkRequest")},
		{api.ChunkResponse{}, at("components", "schemas", "ChunkResponse")},
		{api.ErrorBody{}, at("components", "schemas", "Error")},
		{api.EmbeddingsRequest{}, body("paths", "/v1/embeddings", "post", "requestBody")},
		{api.EmbeddingsResponse{}, body("paths", "/v1/embeddings", "post", "responses", "200")},
		{api.ModelList{}, body("paths", "/v1/models", "get", "responses", "200")},
		{api.SearchRequest{}, at("components", "schemas", "SearchRequest")},
		{api.SearchResponse{}, at("components", "schemas", "SearchResponse")},
	} {
		checkSchema(t, doc, tc.schema, reflect.TypeOf(tc.typ), reflect.TypeOf(tc.typ).Name())
	}
	for _, op := range [][2]string{{"/embed", "post"}, {"/v1/chunk", "post"}, {"/v1/embeddings", "post"}, {"/v1/search", "post"}} {
		responses := at("paths", op[0], op[1], "responses")
		for _, code := range []string{"200", "400", "401", "413", "429", "500", "503", "504"} {
			if responses[code] == nil {
				t.Errorf("%s %s does not document %s", op[1], op[0], code)
			}
		}
	}
}

// checkSchema fails for each JSON field of typ that schema lacks,
// following nested structs, slices and $refs.
func checkSchema(t *testing.T, doc, schema map[string]any, typ reflect.Type, where string) {
	t.Helper()
	for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice {
		typ = typ.Elem()
		if items, ok := resolve(doc, schema)["items"].(map[string]any); ok {
			schema = items
		}
	}
	if typ.Kind() != reflect.Struct || typ.PkgPath() == "time" {
		return
	}
	props, _ := resolve(doc, schema)["properties"].(map[string]any)
	if all, ok := resolve(doc, schema)["allOf"].([]any); ok { // the properties of every part
		props = map[string]any{}
		for _, part := range all {
			p, _ := resolve(doc, part.(map[string]any))["properties"].(map[string]any)
			maps.Copy(props, p)
		}
	}
	for i := range typ.NumField() {
		f := typ.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous && f.Type.Kind() == reflect.Struct { // embedded: its fields are the struct's
			checkSchema(t, doc, schema, f.Type, where)
			continue
		}
		if !f.IsExported() || name == "-" || name == "" {
			continue
		}
		sub, ok := props[name].(map[string]any)
		if !ok {
			t.Errorf("%s: field %q is not in the OpenAPI schema", where, name)
			continue
		}
		if f.Type.Kind() != reflect.Map && f.Type.Kind() != reflect.Interface {
			checkSchema(t, doc, sub, f.Type, where+"."+name)
		}
	}
}

// resolve follows a $ref to its schema.
func resolve(doc, schema map[string]any) map[string]any {
	ref, ok := schema["$ref"].(string)
	if !ok {
		return schema
	}
	var v any = doc
	for _, p := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
		v = v.(map[string]any)[p]
	}
	return resolve(doc, v.(map[string]any))
}

// The description is lint-clean: @redocly/cli reports no error (npm
// installs it outside the repository; the test skips without npm).
func TestOpenAPILint(t *testing.T) {
	npm, err := exec.LookPath("npm")
	if _, nerr := exec.LookPath("node"); err != nil || nerr != nil {
		t.Skip("skipping: node and npm are needed to run @redocly/cli (apt-get install nodejs npm)")
	}
	dir := os.Getenv("GOCHUNK_NPM_DIR")
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			t.Skipf("skipping: no cache directory for npm packages: %v", err)
		}
		dir = filepath.Join(cache, "gochunk-tests", "npm-redocly")
	}
	cli := filepath.Join(dir, "node_modules", ".bin", "redocly")
	if _, err := os.Stat(cli); err != nil {
		if out, err := exec.Command(npm, "install", "--prefix", dir, "--no-audit", "--no-fund", "--ignore-scripts", "@redocly/cli@2").CombinedOutput(); err != nil {
			t.Skipf("skipping: npm could not install @redocly/cli: %v\n%s", err, out)
		}
	}
	spec := filepath.Join(t.TempDir(), "openapi.json")
	os.WriteFile(spec, openapi, 0o644)
	out, err := exec.Command(cli, "lint", spec, "--format=stylish").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "is valid") {
		t.Errorf("redocly lint: %v\n%s", err, out)
	}
}
