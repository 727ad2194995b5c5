# shellcheck shell=bash
# Source this file (bash) to point podman and Molecule at this checkout's Podman setup:
#   source scripts/lib/podman-env.sh
# The config files are written by scripts/setup-podman; the image by scripts/build-image.
# Sourcing only sets variables: it runs no podman command and changes nothing on disk.

_vllm_podman_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

# When CONTAINERS_CONF is set Podman reads only that file, not /etc/containers or
# /usr/share/containers, so the project's settings cannot be mixed with the machine's.
export CONTAINERS_CONF="$_vllm_podman_root/.podman/containers.conf"
export CONTAINERS_STORAGE_CONF="$_vllm_podman_root/.podman/storage.conf"
export CONTAINERS_REGISTRIES_CONF="$_vllm_podman_root/.podman/registries.conf"

# The test image for Molecule, as a full reference including its recipe tag; the scenarios'
# molecule.yml read it as ${VLLM_MOLECULE_IMAGE}.
VLLM_MOLECULE_IMAGE="$(bash "$_vllm_podman_root/scripts/build-image" --print-image)"
export VLLM_MOLECULE_IMAGE

unset _vllm_podman_root
