package kube

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"sync"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// client is the part of the Kubernetes API behaves uses: core/v1 (pods,
// their logs and attach, config maps, namespaces) and networking/v1
// (network policies), over client-go's REST client with a scheme of those
// two groups alone. client-go's clientset would register every API group
// at process start: measured, behaves' resident memory at start grew from
// 14 to 41 MiB with it linked in, on Docker runs too.
type client struct {
	config *rest.Config
	core   rest.Interface
	net    rest.Interface
}

var (
	schemeOnce sync.Once
	apiScheme  *runtime.Scheme
	apiCodecs  serializer.CodecFactory
	apiParams  runtime.ParameterCodec
)

func initScheme() {
	schemeOnce.Do(func() {
		apiScheme = runtime.NewScheme()
		if err := corev1.AddToScheme(apiScheme); err != nil {
			panic(err)
		}
		if err := networkingv1.AddToScheme(apiScheme); err != nil {
			panic(err)
		}
		apiCodecs = serializer.NewCodecFactory(apiScheme)
		apiParams = runtime.NewParameterCodec(apiScheme)
	})
}

// connect reads the kubeconfig ("" finds it as kubectl does) and makes a
// client of its cluster.
func connect(kubeconfig string) (*client, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if kubeconfig != "" {
		rules.ExplicitPath = kubeconfig
	}
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("kubernetes: reading the kubeconfig: %w", err)
	}
	cfg.UserAgent = "behaves"
	// Pods come and go fast: the client's default rate limit (5 per
	// second) would be the run's pace.
	cfg.QPS, cfg.Burst = 100, 200
	return newClient(cfg)
}

// newClient makes the REST clients of the two groups for cfg.
func newClient(cfg *rest.Config) (*client, error) {
	initScheme()
	group := func(apiPath string, gv schema.GroupVersion) (rest.Interface, error) {
		c := rest.CopyConfig(cfg)
		c.APIPath = apiPath
		c.GroupVersion = &gv
		c.NegotiatedSerializer = apiCodecs.WithoutConversion()
		if c.UserAgent == "" {
			c.UserAgent = rest.DefaultKubernetesUserAgent()
		}
		return rest.RESTClientFor(c)
	}
	core, err := group("/api", corev1.SchemeGroupVersion)
	if err != nil {
		return nil, fmt.Errorf("kubernetes: %w", err)
	}
	netc, err := group("/apis", networkingv1.SchemeGroupVersion)
	if err != nil {
		return nil, fmt.Errorf("kubernetes: %w", err)
	}
	return &client{config: cfg, core: core, net: netc}, nil
}

func (c *client) getNamespace(ctx context.Context, name string) error {
	return c.core.Get().Resource("namespaces").Name(name).Do(ctx).Error()
}

func (c *client) createNamespace(ctx context.Context, ns *corev1.Namespace) error {
	return c.core.Post().Resource("namespaces").Body(ns).Do(ctx).Error()
}

func (c *client) createNetworkPolicy(ctx context.Context, ns string, p *networkingv1.NetworkPolicy) error {
	return c.net.Post().Namespace(ns).Resource("networkpolicies").Body(p).Do(ctx).Error()
}

func (c *client) createConfigMap(ctx context.Context, ns string, m *corev1.ConfigMap) error {
	return c.core.Post().Namespace(ns).Resource("configmaps").Body(m).Do(ctx).Error()
}

func (c *client) deleteConfigMap(ctx context.Context, ns, name string) error {
	return c.core.Delete().Namespace(ns).Resource("configmaps").Name(name).Do(ctx).Error()
}

func (c *client) listConfigMaps(ctx context.Context, ns string, opts metav1.ListOptions) (*corev1.ConfigMapList, error) {
	out := &corev1.ConfigMapList{}
	err := c.core.Get().Namespace(ns).Resource("configmaps").VersionedParams(&opts, apiParams).Do(ctx).Into(out)
	return out, err
}

func (c *client) createPod(ctx context.Context, ns string, p *corev1.Pod) (*corev1.Pod, error) {
	out := &corev1.Pod{}
	err := c.core.Post().Namespace(ns).Resource("pods").Body(p).Do(ctx).Into(out)
	return out, err
}

func (c *client) getPod(ctx context.Context, ns, name string) (*corev1.Pod, error) {
	out := &corev1.Pod{}
	err := c.core.Get().Namespace(ns).Resource("pods").Name(name).Do(ctx).Into(out)
	return out, err
}

func (c *client) listPods(ctx context.Context, ns string, opts metav1.ListOptions) (*corev1.PodList, error) {
	out := &corev1.PodList{}
	err := c.core.Get().Namespace(ns).Resource("pods").VersionedParams(&opts, apiParams).Do(ctx).Into(out)
	return out, err
}

func (c *client) watchPods(ctx context.Context, ns string, opts metav1.ListOptions) (watch.Interface, error) {
	opts.Watch = true
	return c.core.Get().Namespace(ns).Resource("pods").VersionedParams(&opts, apiParams).Watch(ctx)
}

func (c *client) patchPod(ctx context.Context, ns, name string, patch []byte) error {
	return c.core.Patch(types.StrategicMergePatchType).Namespace(ns).Resource("pods").Name(name).Body(patch).Do(ctx).Error()
}

func (c *client) deletePod(ctx context.Context, ns, name string, opts metav1.DeleteOptions) error {
	return c.core.Delete().Namespace(ns).Resource("pods").Name(name).Body(&opts).Do(ctx).Error()
}

func (c *client) podLogs(ctx context.Context, ns, name string, opts *corev1.PodLogOptions) (io.ReadCloser, error) {
	return c.core.Get().Namespace(ns).Resource("pods").Name(name).SubResource("log").VersionedParams(opts, apiParams).Stream(ctx)
}

func (c *client) attachURL(ns, name string, opts *corev1.PodAttachOptions) *url.URL {
	return c.core.Post().Namespace(ns).Resource("pods").Name(name).SubResource("attach").VersionedParams(opts, apiParams).URL()
}
