{{/* Chart name, truncated to the 63 characters Kubernetes allows in a label. */}}
{{- define "cip.name" -}}
{{- .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Release-qualified base name; each app appends "-<app>" (the longest, "-authorizations", fits in 63). */}}
{{- define "cip.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 48 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 48 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* Labels of every object. Call with (dict "root" $ "component" "gateway"). */}}
{{- define "cip.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version | replace "+" "_" }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/part-of: {{ include "cip.name" .root }}
cip/environment: {{ .root.Values.environment }}
{{ include "cip.selectorLabels" . }}
{{- end -}}

{{/* Labels that select one app's pods; must never change after the first install. */}}
{{- define "cip.selectorLabels" -}}
app.kubernetes.io/name: {{ include "cip.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "cip.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{/*
One app's settings: the service defaults overlaid with its entry of .Values.services. Call with
(dict "root" $ "name" "users"); returns YAML (fromYaml it). `enabled` is read apart: a merge never lets a
`false` of the entry win over a `true` default.
*/}}
{{- define "cip.app" -}}
{{- $entry := index .root.Values.services .name | default dict -}}
{{- $app := mergeOverwrite (deepCopy .root.Values.serviceDefaults) (deepCopy $entry) -}}
{{- $_ := set $app "enabled" (ternary $entry.enabled true (hasKey $entry "enabled")) -}}
{{- toYaml $app -}}
{{- end -}}

{{/* The environment variable prefix of an app's address: three-ds -> THREE_DS. */}}
{{- define "cip.envPrefix" -}}
{{- . | upper | replace "-" "_" -}}
{{- end -}}

{{/*
The variables every app of the platform reads: the stores (the Secret's common keys, KAFKA_BROKERS), its
Kafka client id and log level. Apps but those `storesOnly` (the relay) also read STORE_DRIVER and
the address (<SERVICE>_HOST, <SERVICE>_TCP_PORT) of every service of the release; the context services
(a `tcpPort`) also DATA_DIR, where they keep what they make on disk. Call with (dict "root" $ "name" "users").
*/}}
{{- define "cip.commonEnv" -}}
{{- $root := .root -}}
{{- $app := include "cip.app" (dict "root" $root "name" .name) | fromYaml -}}
{{- if not $app.storesOnly }}
- name: STORE_DRIVER
  value: distributed
{{- end }}
{{- range $root.Values.secrets.common }}
- name: {{ . }}
  valueFrom:
    secretKeyRef:
      name: {{ $root.Values.secrets.existingSecret }}
      key: {{ . }}
{{- end }}
- name: KAFKA_BROKERS
  value: {{ $root.Values.kafkaBrokers | quote }}
- name: KAFKA_CLIENT_ID
  value: {{ printf "%s-%s" $root.Values.kafkaClientIdPrefix .name | quote }}
- name: LOG_LEVEL
  value: {{ $root.Values.logLevel | quote }}
{{- if $app.tcpPort }}
- name: DATA_DIR
  value: {{ $root.Values.dataDir | quote }}
{{- end }}
{{- if not $app.storesOnly }}
{{- range $name, $_ := $root.Values.services }}
{{- $peer := include "cip.app" (dict "root" $root "name" $name) | fromYaml }}
{{- if and $peer.enabled $peer.tcpPort }}
- name: {{ include "cip.envPrefix" $name }}_HOST
  value: {{ printf "%s-%s" (include "cip.fullname" $root) $name }}
- name: {{ include "cip.envPrefix" $name }}_TCP_PORT
  value: {{ $peer.tcpPort | quote }}
{{- end }}
{{- end }}
{{- end }}
{{- end -}}

{{/* The probes of an app, on its named port `health`. Call with the root context. */}}
{{- define "cip.probes" -}}
{{- $p := .Values.probes -}}
readinessProbe:
  httpGet: { path: {{ $p.readiness.path }}, port: health }
  periodSeconds: {{ $p.readiness.periodSeconds }}
  timeoutSeconds: {{ $p.readiness.timeoutSeconds }}
  failureThreshold: {{ $p.readiness.failureThreshold }}
livenessProbe:
  httpGet: { path: {{ $p.liveness.path }}, port: health }
  periodSeconds: {{ $p.liveness.periodSeconds }}
  timeoutSeconds: {{ $p.liveness.timeoutSeconds }}
  failureThreshold: {{ $p.liveness.failureThreshold }}
startupProbe:
  httpGet: { path: {{ $p.startup.path }}, port: health }
  periodSeconds: {{ $p.startup.periodSeconds }}
  timeoutSeconds: {{ $p.startup.timeoutSeconds }}
  failureThreshold: {{ $p.startup.failureThreshold }}
{{- end -}}
