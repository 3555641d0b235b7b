package main

import (
	"fmt"
	"os"
	"path/filepath"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
)

// workload is a pod template and where it comes from.
type workload struct {
	obj  Object
	kind string
	sel  *metav1.LabelSelector
	pod  *corev1.PodTemplateSpec
	pvcs []corev1.PersistentVolumeClaim // StatefulSet volume claim templates
}

// checker collects problems.
type checker struct {
	b        *Bundle
	problems []string
}

func (c *checker) errf(o Object, format string, args ...any) {
	c.problems = append(c.problems, o.String()+": "+fmt.Sprintf(format, args...))
}

// Check returns every problem found in the bundle.
func (b *Bundle) Check() []string {
	c := &checker{b: b}
	c.kustomizations()
	ns := ""
	names := map[string]Object{}
	for _, o := range b.Objects {
		c.metadata(o)
		key := o.GVK.Kind + "/" + o.Meta.GetNamespace() + "/" + o.Meta.GetName()
		if prev, dup := names[key]; dup {
			c.errf(o, "defined twice (also %s)", prev.Where)
		}
		names[key] = o
		if o.GVK.Kind != "Namespace" {
			if ns == "" {
				ns = o.Meta.GetNamespace()
			} else if o.Meta.GetNamespace() != ns {
				c.errf(o, "namespace %q, others are in %q", o.Meta.GetNamespace(), ns)
			}
		}
	}
	ws := c.workloads()
	for _, w := range ws {
		c.workload(w)
	}
	for _, o := range b.Objects {
		switch v := o.Obj.(type) {
		case *corev1.Service:
			c.service(o, v, ws)
		case *appsv1.StatefulSet:
			c.statefulSetService(o, v)
		case *autoscalingv2.HorizontalPodAutoscaler:
			c.hpa(o, v, ws)
		case *networkingv1.NetworkPolicy:
			c.networkPolicy(o, v, ws)
		}
	}
	return c.problems
}

func (c *checker) kustomizations() {
	for _, k := range c.b.Kustom {
		if len(k.Resources) == 0 {
			c.problems = append(c.problems, k.Where+": Kustomization lists no resources")
		}
		for _, r := range k.Resources {
			if _, err := os.Stat(filepath.Join(k.Dir, r)); err != nil {
				c.problems = append(c.problems, fmt.Sprintf("%s: resource %s: %v", k.Where, r, err))
			}
		}
	}
}

func (c *checker) metadata(o Object) {
	if o.Meta.GetName() == "" {
		c.errf(o, "no metadata.name")
	}
	for _, msg := range validation.IsDNS1123Subdomain(o.Meta.GetName()) {
		c.errf(o, "name: %s", msg)
	}
	if o.GVK.Kind != "Namespace" && o.Meta.GetNamespace() == "" {
		c.errf(o, "no metadata.namespace")
	}
	c.labels(o, "metadata.labels", o.Meta.GetLabels())
}

func (c *checker) labels(o Object, where string, ls map[string]string) {
	for k, v := range ls {
		for _, msg := range validation.IsQualifiedName(k) {
			c.errf(o, "%s key %q: %s", where, k, msg)
		}
		for _, msg := range validation.IsValidLabelValue(v) {
			c.errf(o, "%s %s=%q: %s", where, k, v, msg)
		}
	}
}

func (c *checker) workloads() []workload {
	var ws []workload
	for _, o := range c.b.Objects {
		switch v := o.Obj.(type) {
		case *appsv1.Deployment:
			ws = append(ws, workload{obj: o, kind: "Deployment", sel: v.Spec.Selector, pod: &v.Spec.Template})
		case *appsv1.StatefulSet:
			ws = append(ws, workload{obj: o, kind: "StatefulSet", sel: v.Spec.Selector, pod: &v.Spec.Template,
				pvcs: v.Spec.VolumeClaimTemplates})
		case *appsv1.DaemonSet:
			ws = append(ws, workload{obj: o, kind: "DaemonSet", sel: v.Spec.Selector, pod: &v.Spec.Template})
		}
	}
	return ws
}

// selects reports whether a label selector (a Service's is a plain map)
// picks the workload's pods.
func selects(sel labels.Selector, w workload) bool {
	return !sel.Empty() && sel.Matches(labels.Set(w.pod.Labels))
}

func (c *checker) workload(w workload) {
	o := w.obj
	if w.sel == nil {
		c.errf(o, "no spec.selector")
		return
	}
	sel, err := metav1.LabelSelectorAsSelector(w.sel)
	if err != nil {
		c.errf(o, "spec.selector: %v", err)
		return
	}
	if !selects(sel, w) {
		c.errf(o, "spec.selector %v does not match the template's labels %v", sel, w.pod.Labels)
	}
	c.labels(o, "template labels", w.pod.Labels)
	c.podSecurity(o, w.pod.Spec.SecurityContext)
	vols := map[string]corev1.Volume{}
	for _, v := range w.pod.Spec.Volumes {
		vols[v.Name] = v
		if v.Secret != nil {
			c.secretVolume(o, v)
		}
	}
	for _, p := range w.pvcs {
		vols[p.Name] = corev1.Volume{Name: p.Name}
		if q, ok := p.Spec.Resources.Requests[corev1.ResourceStorage]; !ok || q.IsZero() {
			c.errf(o, "volume claim template %s requests no storage", p.Name)
		}
	}
	if len(w.pod.Spec.Containers) == 0 {
		c.errf(o, "no containers")
	}
	for i := range w.pod.Spec.Containers {
		c.container(o, &w.pod.Spec.Containers[i], vols)
	}
}

func (c *checker) podSecurity(o Object, sc *corev1.PodSecurityContext) {
	if sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.RunAsUser == nil || *sc.RunAsUser == 0 {
		c.errf(o, "pods must run as a non-root numeric user (securityContext.runAsNonRoot and runAsUser)")
	}
}

func (c *checker) secretVolume(o Object, v corev1.Volume) {
	s := c.secret(v.Secret.SecretName)
	if s == nil {
		c.errf(o, "volume %s: no Secret %q among the manifests", v.Name, v.Secret.SecretName)
		return
	}
	for _, it := range v.Secret.Items {
		_, inData := s.Data[it.Key]
		_, inString := s.StringData[it.Key]
		if !inData && !inString {
			c.errf(o, "volume %s: Secret %s has no key %q", v.Name, s.Name, it.Key)
		}
	}
}

func (c *checker) secret(name string) *corev1.Secret {
	for _, o := range c.b.Objects {
		if s, ok := o.Obj.(*corev1.Secret); ok && s.Name == name {
			return s
		}
	}
	return nil
}

func (c *checker) container(o Object, ct *corev1.Container, vols map[string]corev1.Volume) {
	where := "container " + ct.Name
	for _, msg := range validation.IsDNS1123Label(ct.Name) {
		c.errf(o, "%s: name: %s", where, msg)
	}
	if ct.Image == "" {
		c.errf(o, "%s: no image", where)
	}
	ports := map[string]int32{}
	numbers := map[int32]bool{}
	for _, p := range ct.Ports {
		if p.Name != "" {
			for _, msg := range validation.IsValidPortName(p.Name) {
				c.errf(o, "%s: port name %q: %s", where, p.Name, msg)
			}
			ports[p.Name] = p.ContainerPort
		}
		for _, msg := range validation.IsValidPortNum(int(p.ContainerPort)) {
			c.errf(o, "%s: port %d: %s", where, p.ContainerPort, msg)
		}
		numbers[p.ContainerPort] = true
	}
	for name, pr := range map[string]*corev1.Probe{"startupProbe": ct.StartupProbe, "livenessProbe": ct.LivenessProbe, "readinessProbe": ct.ReadinessProbe} {
		if pr != nil {
			c.probe(o, where+": "+name, pr, ports, numbers)
		}
	}
	for _, m := range ct.VolumeMounts {
		if _, ok := vols[m.Name]; !ok {
			c.errf(o, "%s: mounts volume %q, which the pod does not define", where, m.Name)
		}
	}
	c.resources(o, where, ct)
	for _, e := range ct.Env {
		if e.ValueFrom != nil && e.ValueFrom.ResourceFieldRef != nil && e.ValueFrom.ResourceFieldRef.ContainerName != ct.Name {
			c.errf(o, "%s: env %s reads the resources of another container", where, e.Name)
		}
	}
	if sc := ct.SecurityContext; sc == nil || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
		c.errf(o, "%s: securityContext.allowPrivilegeEscalation must be false", where)
	}
}

func (c *checker) probe(o Object, where string, pr *corev1.Probe, ports map[string]int32, numbers map[int32]bool) {
	handlers := 0
	if pr.Exec != nil {
		handlers++
	}
	if pr.HTTPGet != nil {
		handlers++
		c.portRef(o, where+" httpGet", pr.HTTPGet.Port, ports, numbers)
	}
	if pr.TCPSocket != nil {
		handlers++
		c.portRef(o, where+" tcpSocket", pr.TCPSocket.Port, ports, numbers)
	}
	if pr.GRPC != nil {
		handlers++
		if !numbers[pr.GRPC.Port] {
			c.errf(o, "%s: grpc port %d is not a port of the container", where, pr.GRPC.Port)
		}
	}
	if handlers != 1 {
		c.errf(o, "%s: %d handlers, want exactly one", where, handlers)
	}
}

func (c *checker) portRef(o Object, where string, p intstr.IntOrString, ports map[string]int32, numbers map[int32]bool) {
	if p.Type == intstr.String {
		if _, ok := ports[p.StrVal]; !ok {
			c.errf(o, "%s: no container port named %q", where, p.StrVal)
		}
		return
	}
	if !numbers[p.IntVal] {
		c.errf(o, "%s: port %d is not a port of the container", where, p.IntVal)
	}
}

// resources requires CPU and memory requests and limits, requests no
// larger than limits (the scheduler and the HPA need requests).
func (c *checker) resources(o Object, where string, ct *corev1.Container) {
	for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		req, hasReq := ct.Resources.Requests[r]
		lim, hasLim := ct.Resources.Limits[r]
		if !hasReq || !hasLim {
			c.errf(o, "%s: needs both a request and a limit of %s", where, r)
			continue
		}
		if req.Cmp(lim) > 0 {
			c.errf(o, "%s: %s request %s exceeds its limit %s", where, r, req.String(), lim.String())
		}
		if req.Sign() <= 0 {
			c.errf(o, "%s: %s request must be positive", where, r)
		}
	}
}

func (c *checker) service(o Object, s *corev1.Service, ws []workload) {
	if len(s.Spec.Selector) == 0 {
		c.errf(o, "no selector")
		return
	}
	sel := labels.SelectorFromSet(s.Spec.Selector)
	var matched []workload
	for _, w := range ws {
		if selects(sel, w) {
			matched = append(matched, w)
		}
	}
	if len(matched) == 0 {
		c.errf(o, "selector %v matches no workload's pods", sel)
		return
	}
	for _, p := range s.Spec.Ports {
		target := p.TargetPort
		if target.Type == intstr.Int && target.IntVal == 0 {
			target = intstr.FromInt32(p.Port)
		}
		for _, w := range matched {
			if !podHasPort(w.pod, target) {
				c.errf(o, "port %s: target %s is not a container port of %s", p.Name, target.String(), w.obj)
			}
		}
	}
}

func podHasPort(pod *corev1.PodTemplateSpec, target intstr.IntOrString) bool {
	for _, ct := range pod.Spec.Containers {
		for _, cp := range ct.Ports {
			if target.Type == intstr.String && cp.Name == target.StrVal || target.Type == intstr.Int && cp.ContainerPort == target.IntVal {
				return true
			}
		}
	}
	return false
}

func (c *checker) statefulSetService(o Object, s *appsv1.StatefulSet) {
	for _, other := range c.b.Objects {
		if svc, ok := other.Obj.(*corev1.Service); ok && svc.Name == s.Spec.ServiceName {
			if svc.Spec.ClusterIP != corev1.ClusterIPNone {
				c.errf(o, "serviceName %s is not a headless Service (clusterIP: None)", svc.Name)
			}
			return
		}
	}
	c.errf(o, "serviceName %q: no such Service among the manifests", s.Spec.ServiceName)
}

func (c *checker) hpa(o Object, h *autoscalingv2.HorizontalPodAutoscaler, ws []workload) {
	ref := h.Spec.ScaleTargetRef
	var target *workload
	for i, w := range ws {
		if w.kind == ref.Kind && w.obj.Meta.GetName() == ref.Name && w.obj.GVK.GroupVersion().String() == ref.APIVersion {
			target = &ws[i]
		}
	}
	if target == nil {
		c.errf(o, "scaleTargetRef %s %s (%s) is not among the manifests", ref.Kind, ref.Name, ref.APIVersion)
		return
	}
	if h.Spec.MinReplicas != nil && *h.Spec.MinReplicas > h.Spec.MaxReplicas || h.Spec.MaxReplicas < 1 {
		c.errf(o, "replicas: min %v > max %d", *h.Spec.MinReplicas, h.Spec.MaxReplicas)
	}
	for _, m := range h.Spec.Metrics {
		if m.Type != autoscalingv2.ResourceMetricSourceType || m.Resource == nil {
			continue
		}
		for _, ct := range target.pod.Spec.Containers {
			if q, ok := ct.Resources.Requests[m.Resource.Name]; !ok || q.Cmp(resource.Quantity{}) <= 0 {
				c.errf(o, "scales on %s utilisation but container %s of %s requests none", m.Resource.Name, ct.Name, target.obj)
			}
		}
	}
}

func (c *checker) networkPolicy(o Object, np *networkingv1.NetworkPolicy, ws []workload) {
	sel, err := metav1.LabelSelectorAsSelector(&np.Spec.PodSelector)
	if err != nil {
		c.errf(o, "podSelector: %v", err)
		return
	}
	var matched []workload
	for _, w := range ws {
		if selects(sel, w) {
			matched = append(matched, w)
		}
	}
	if len(matched) == 0 {
		c.errf(o, "podSelector %v matches no workload's pods", sel)
	}
	for _, rule := range np.Spec.Ingress {
		for _, p := range rule.Ports {
			if p.Port == nil {
				continue
			}
			for _, w := range matched {
				if !podHasPort(w.pod, *p.Port) {
					c.errf(o, "ingress port %s is not a container port of %s", p.Port.String(), w.obj)
				}
			}
		}
	}
}
