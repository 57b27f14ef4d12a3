"""A game service's own manifests (``deploy/kustomize/base/services/<game>.yaml``), from one
template filled per game.

Every game service is deployed alike: a Deployment of ``parlor-serve <game>`` (the schema
migrated first, spread over nodes and zones, probed on its gRPC service), a Service, a
PodDisruptionBudget and a HorizontalPodAutoscaler. What differs is filled in from what the
platform already says once:

- the name and the gRPC service probed: the registry (``parlor.game_types``);
- whether it calls the dictionary, with its own signing key (``Secret parlor-<game>-key``)
  and the ConfigMap ``parlor-words``: the game's declaration (``GameType.calls``), which
  ``parlor-keys`` makes keys by;
- its own settings (``envFrom`` ConfigMap ``parlor-<game>``): when ``base/kustomization.yaml``
  generates that ConfigMap (the settings and their values are a deployment's);
- the parlor container's ``resources``: kept from the committed file (sized per game by
  whoever deploys it), a new game gets ``DEFAULT_RESOURCES``.

``parlor.devinfra.gamelists`` writes these files with the lists; its ``--check`` (and
tests/deploy/test_deploy_gamelists.py) fails while one differs, is missing, or is left over
from a game no longer registered.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from string import Template

SERVICES = "base/services"
MARK = "# Written by python -m parlor.devinfra.gamelists from the registry"
DEFAULT_RESOURCES = (
    "            requests: {cpu: 100m, memory: 192Mi}\n"
    '            limits: {cpu: "1", memory: 384Mi}\n'
)


@dataclass(frozen=True)
class GameService:
    """What a game's manifests are filled with."""

    name: str  # "upwords"
    service: str  # "parlor.upwords.v1.UpwordsService"
    words: bool  # calls the dictionary with a signing key of its own
    settings: bool  # has a ConfigMap parlor-<name> of its own
    resources: str = DEFAULT_RESOURCES  # the lines under the parlor container's resources:


HEAD = Template(
    """\
# $name: Game streams in PostgreSQL (optimistic concurrency on every append), events on NATS.
# Any replica serves any game: state is replayed from the store.$words
$mark (a template filled per game);
# the parlor container's resources are this game's own: kept when the file is written again.
"""
)

BODY = Template(
    """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: $name
  labels:
    app.kubernetes.io/name: $name
    app.kubernetes.io/component: service
spec:
  # no replicas: the HorizontalPodAutoscaler below owns the count (an apply must not reset it)
  revisionHistoryLimit: 5
  selector:
    matchLabels:
      app.kubernetes.io/name: $name
  strategy:
    type: RollingUpdate
    rollingUpdate: {maxSurge: 1, maxUnavailable: 0}
  template:
    metadata:
      labels:
        app.kubernetes.io/name: $name
        app.kubernetes.io/component: service
    spec:
      topologySpreadConstraints:
        - maxSkew: 1
          topologyKey: kubernetes.io/hostname
          whenUnsatisfiable: ScheduleAnyway
          labelSelector:
            matchLabels:
              app.kubernetes.io/name: $name
        - maxSkew: 1
          topologyKey: topology.kubernetes.io/zone
          whenUnsatisfiable: ScheduleAnyway
          labelSelector:
            matchLabels:
              app.kubernetes.io/name: $name
      initContainers:
        # Bring the schema up to date before serving (a no-op when it already is; safe
        # concurrently: parlor-migrate takes an advisory lock). See also migrate-job.yaml.
        - name: migrate
          image: parlor
          command: [parlor-migrate]
          env:
            - name: PARLOR_DATABASE_URL
              valueFrom:
                secretKeyRef: {name: parlor-db-app, key: uri}
          resources:
            requests: {cpu: 50m, memory: 96Mi}
            limits: {cpu: "1", memory: 256Mi}
          securityContext:
            allowPrivilegeEscalation: false
            readOnlyRootFilesystem: true
            runAsNonRoot: true
            capabilities: {drop: [ALL]}
          volumeMounts:
            - {name: tmp, mountPath: /tmp}
      containers:
        - name: parlor
          image: parlor
          args: [$name]
          envFrom:
            - configMapRef: {name: parlor-common}
            - configMapRef: {name: parlor-backends}
            - configMapRef: {name: parlor-games}
            - configMapRef: {name: parlor-admission}
$config_maps\
          env:
            - name: PARLOR_JWT_KEY_ID
              value: $name
$private_key\
            - name: PARLOR_JWT_PUBLIC_KEYS
              valueFrom:
                secretKeyRef: {name: parlor-jwks, key: jwks.json}
            - name: PARLOR_NATS_USER
              value: $name
            - name: PARLOR_NATS_PASSWORD
              valueFrom:
                secretKeyRef: {name: parlor-nats, key: $name-password}
            - name: PARLOR_DATABASE_URL
              valueFrom:
                secretKeyRef: {name: parlor-db-app, key: uri}
          readinessProbe:
            grpc:
              port: 50051
              service: "$service"
            periodSeconds: 5
            timeoutSeconds: 2
            failureThreshold: 2
          resources:
$resources\
---
apiVersion: v1
kind: Service
metadata:
  name: $name
  labels:
    app.kubernetes.io/name: $name
    app.kubernetes.io/component: service
spec:
  type: ClusterIP
  selector:
    app.kubernetes.io/name: $name
  ports:
    - name: grpc
      port: 50051
      targetPort: grpc
      appProtocol: kubernetes.io/h2c
    - name: metrics
      port: 9090
      targetPort: metrics
      appProtocol: http
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: $name
  labels:
    app.kubernetes.io/name: $name
spec:
  maxUnavailable: 1
  unhealthyPodEvictionPolicy: AlwaysAllow
  selector:
    matchLabels:
      app.kubernetes.io/name: $name
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: $name
  labels:
    app.kubernetes.io/name: $name
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: $name
  minReplicas: 2
  maxReplicas: 10
  metrics:
    - type: Resource
      resource:
        name: cpu
        target: {type: Utilization, averageUtilization: 70}
  behavior:
    scaleDown:
      stabilizationWindowSeconds: 300
"""
)

NO_KEY = """\
            - name: PARLOR_JWT_PRIVATE_KEY
              value: ""  # signs nothing: verifies with the public keys only
"""
OWN_KEY = Template(
    """\
            # its own key: signs only its own service token (see deploy/README.md, "Trust")
            - name: PARLOR_JWT_PRIVATE_KEY
              valueFrom:
                secretKeyRef: {name: parlor-$name-key, key: private-key}
"""
)


def manifests(game: GameService) -> str:
    """The file ``base/services/<game>.yaml``."""
    config_maps = [
        *(["parlor-words"] if game.words else []),
        *([f"parlor-{game.name}"] if game.settings else []),
    ]
    fill = {
        "name": game.name,
        "service": game.service,
        "config_maps": "".join(
            f"            - configMapRef: {{name: {name}}}\n" for name in config_maps
        ),
        "private_key": OWN_KEY.substitute(name=game.name) if game.words else NO_KEY,
        "resources": game.resources,
    }
    words = "\n# Words are checked by the dictionary service." if game.words else ""
    return HEAD.substitute(name=game.name, words=words, mark=MARK) + BODY.substitute(fill)


def written(text: str) -> bool:
    """Whether a file under base/services is one of these (a game's, written from the registry)."""
    return MARK in text


def resources(text: str) -> str | None:
    """The lines under the parlor container's ``resources:`` in a committed file (None: none):
    the last block of its kind, after the migrate container's."""
    found = re.findall(r"^          resources:\n((?:            .*\n)+)", text, re.M)
    return found[-1] if found else None


def config_maps(kustomization: str) -> set[str]:
    """The names of the ConfigMaps ``base/kustomization.yaml`` generates."""
    _, _, rest = kustomization.partition("\nconfigMapGenerator:\n")
    generator = re.split(r"\n(?=[^\s#])", rest, maxsplit=1)[0]  # up to the next top-level key
    return set(re.findall(r"^  - name: ([\w.-]+)", generator, re.M))


def games_of(
    names: Sequence[tuple[str, str]],
    calling: Sequence[str],
    kustomization: str,
    committed: dict[str, str],
) -> list[GameService]:
    """Each game (name, service) as its manifests are filled: ``committed`` holds the files
    there are now (by game), whose resources are kept."""
    generated = config_maps(kustomization)
    found: list[GameService] = []
    for name, service in names:
        kept = resources(committed.get(name, ""))
        found.append(
            GameService(
                name,
                service,
                words=name in calling,
                settings=f"parlor-{name}" in generated,
                resources=kept or DEFAULT_RESOURCES,
            )
        )
    return found
