{{/* Chart name, truncated to the 63 characters Kubernetes allows in a label. */}}
{{- define "cip.name" -}}
{{- .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Release-qualified base name; the apps append "-gateway", "-users", "-relay". */}}
{{- define "cip.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 50 | trimSuffix "-" -}}
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

{{/* Store connections: URLs from the Secret, brokers and client id from the values. Call with (dict "root" $ "component" "users"). */}}
{{- define "cip.storeEnv" -}}
- name: EVENTSTORE_URL
  valueFrom:
    secretKeyRef:
      name: {{ .root.Values.connectionSecret.name }}
      key: {{ .root.Values.connectionSecret.eventStoreUrlKey }}
- name: MONGO_URL
  valueFrom:
    secretKeyRef:
      name: {{ .root.Values.connectionSecret.name }}
      key: {{ .root.Values.connectionSecret.mongoUrlKey }}
- name: PERSONAL_DATA_MASTER_KEY
  valueFrom:
    secretKeyRef:
      name: {{ .root.Values.connectionSecret.name }}
      key: {{ .root.Values.connectionSecret.personalDataMasterKeyKey }}
- name: KAFKA_BROKERS
  value: {{ .root.Values.kafkaBrokers | quote }}
- name: KAFKA_CLIENT_ID
  value: {{ printf "%s-%s" .root.Values.kafkaClientIdPrefix .component | quote }}
- name: LOG_LEVEL
  value: {{ .root.Values.logLevel | quote }}
{{- end -}}

{{/* Liveness and readiness on GET /health of the named container port. */}}
{{- define "cip.probes" -}}
livenessProbe:
  httpGet:
    path: /health
    port: {{ .port }}
  {{- toYaml .root.Values.probes.liveness | nindent 2 }}
readinessProbe:
  httpGet:
    path: /health
    port: {{ .port }}
  {{- toYaml .root.Values.probes.readiness | nindent 2 }}
{{- end -}}

{{/* Pod-level settings shared by the apps. */}}
{{- define "cip.podSpecCommon" -}}
securityContext:
  {{- toYaml .Values.podSecurityContext | nindent 2 }}
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}
