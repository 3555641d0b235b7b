package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// Object is one decoded manifest document.
type Object struct {
	Where string // file:document
	GVK   schema.GroupVersionKind
	Obj   runtime.Object
	Meta  metav1.Object
}

func (o Object) String() string {
	return fmt.Sprintf("%s %s/%s (%s)", o.GVK.Kind, o.Meta.GetNamespace(), o.Meta.GetName(), o.Where)
}

// Bundle is every object of the manifests under check.
type Bundle struct {
	Files   []string
	Objects []Object
	Kustom  []kustomization
}

type kustomization struct {
	Where     string
	Dir       string
	Resources []string
}

var scheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, appsv1.AddToScheme,
		autoscalingv2.AddToScheme, networkingv1.AddToScheme, policyv1.AddToScheme} {
		if err := add(s); err != nil {
			panic(err)
		}
	}
	return s
}()

var separator = regexp.MustCompile(`(?m)^---\s*$`)

// Load reads every .yaml/.yml file under the paths. A document that is
// not valid YAML, names an unknown kind, or does not decode strictly into
// its type is an error.
func Load(paths ...string) (*Bundle, error) {
	b := &Bundle{}
	for _, p := range paths {
		err := filepath.WalkDir(p, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			if ext := filepath.Ext(path); ext == ".yaml" || ext == ".yml" {
				b.Files = append(b.Files, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	slices.Sort(b.Files)
	if len(b.Files) == 0 {
		return nil, fmt.Errorf("no manifest under %v", paths)
	}
	var errs []string
	for _, f := range b.Files {
		if err := b.loadFile(f); err != nil {
			errs = append(errs, err.Error())
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%s", strings.Join(errs, "\n"))
	}
	return b, nil
}

func (b *Bundle) loadFile(path string) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	for i, doc := range separator.Split(string(raw), -1) {
		where := fmt.Sprintf("%s#%d", path, i+1)
		if strings.TrimSpace(stripComments(doc)) == "" {
			continue
		}
		var tm metav1.TypeMeta
		if err := yaml.Unmarshal([]byte(doc), &tm); err != nil {
			return fmt.Errorf("%s: not YAML: %w", where, err)
		}
		gvk := schema.FromAPIVersionAndKind(tm.APIVersion, tm.Kind)
		if gvk.Group == "kustomize.config.k8s.io" && gvk.Kind == "Kustomization" {
			var k struct {
				APIVersion string   `json:"apiVersion"`
				Kind       string   `json:"kind"`
				Resources  []string `json:"resources"`
			}
			if err := yaml.UnmarshalStrict([]byte(doc), &k); err != nil {
				return fmt.Errorf("%s: Kustomization: %w", where, err)
			}
			b.Kustom = append(b.Kustom, kustomization{Where: where, Dir: filepath.Dir(path), Resources: k.Resources})
			continue
		}
		obj, err := scheme.New(gvk)
		if err != nil {
			return fmt.Errorf("%s: unknown kind %q of %q (known: core/v1, apps/v1, autoscaling/v2, networking.k8s.io/v1, policy/v1)",
				where, tm.Kind, tm.APIVersion)
		}
		if err := decodeStrict([]byte(doc), obj); err != nil {
			return fmt.Errorf("%s: %s does not match its schema: %w", where, gvk.Kind, err)
		}
		meta, ok := obj.(metav1.Object)
		if !ok {
			return fmt.Errorf("%s: %s has no metadata", where, gvk.Kind)
		}
		b.Objects = append(b.Objects, Object{Where: where, GVK: gvk, Obj: obj, Meta: meta})
	}
	return nil
}

func stripComments(doc string) string {
	var out []string
	for _, l := range strings.Split(doc, "\n") {
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "#") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// decodeStrict decodes a YAML document into obj as the API server's
// strict field validation does: duplicate keys, unknown fields (reported
// with their path) and wrong types are errors.
func decodeStrict(doc []byte, obj runtime.Object) error {
	js, err := yaml.YAMLToJSONStrict(doc)
	if err != nil {
		return err
	}
	strict, err := kjson.UnmarshalStrict(js, obj)
	if err != nil {
		return err
	}
	if len(strict) > 0 {
		msgs := make([]string, len(strict))
		for i, e := range strict {
			msgs[i] = e.Error()
		}
		return fmt.Errorf("%s", strings.Join(msgs, "; "))
	}
	return nil
}
