# bash completion for xtap and xtap-run (installed as
# /usr/share/bash-completion/completions/xtap and .../xtap-run).
# Options come from `xtap --help`, so they follow the program; probe points
# from a list of families, tracepoint names from `xtap -l` (the kernel
# catalog, cached by xtap; skipped if it takes more than 5 seconds) and
# kernel function names from /proc/kallsyms.

_xtap_releases() {
  local d
  for d in /lib/modules/*/build; do
    [ -e "$d/Makefile" ] && d=${d%/build} && echo "${d##*/}"
  done
}

# The probe points that start with $1 (the text typed so far of one point).
_xtap_probe_points() {
  local frag=$1 prefix
  case $frag in
    kernel.trace\(*)
      # "system:name" from the catalog of the -r kernel (else the running
      # one); one call per shell and kernel, as it can cost seconds.
      if [ "${_xtap_tracepoints_of-}" != "${_xtap_release-}" ] || [ -z "${_xtap_tracepoints+set}" ]; then
        _xtap_tracepoints=$(timeout 5 "${_xtap_cmd:-xtap}" ${_xtap_release:+-r "$_xtap_release"} \
                              -l 'kernel.trace("*:*")' 2>/dev/null)
        _xtap_tracepoints_of=${_xtap_release-}
      fi
      [[ $frag == *\"* ]] || frag=${frag/(/(\"}
      printf '%s\n' "$_xtap_tracepoints" | awk -v p="$frag" 'index($0, p) == 1' | head -500
      ;;
    kernel.function\(\"* | kprobe.function\(\"*)
      prefix=${frag%%\"*}\"
      local name=${frag#*\"}
      [ ${#name} -ge 2 ] || return 0  # every kernel function is too many
      awk -v p="$name" -v pre="$prefix" '$2 ~ /^[tT]$/ && index($3, p) == 1 && $3 !~ /[.\[]/ {print pre $3 "\")"}' \
        /proc/kallsyms 2>/dev/null | sort -u | head -500
      ;;
    *)
      compgen -W 'begin end error oneshot never
        timer.ns( timer.us( timer.ms( timer.s( timer.hz( timer.jiffies(
        timer.profile timer.profile.tick timer.profile.freq.hz(
        perf.sw. perf.hw. perf.type(
        kernel.trace(" kernel.function(" kernel.statement(" kprobe.function("
        module(" process(" process.begin process.end netfilter.hook(" procfs("
        syscall. syscall_any syscall_any.return nd_syscall. scheduler. signal.
        kprocess. vm. ioblock. ioblock_trace. vfs. irq_handler. softirq. netdev.
        netfilter. udp. tcp.receive prometheus json_data' -- "$frag"
      ;;
  esac
}

# Completes one probe point: the candidates are whole points, but readline
# replaces only the part after its last word-break character ( " : = and
# so on), so that much of each candidate is cut off first.
_xtap_complete_point() {
  local line=${COMP_LINE:0:COMP_POINT}
  local frag=${line##*[[:space:]]}
  frag=${frag#[\'\"]}
  local keep=
  # Inside an open quote readline replaces the whole quoted word; otherwise
  # only what follows the last break character.
  if [[ ${COMP_WORDS[COMP_CWORD]} != [\'\"]* ]]; then
    local word=${frag##*[\"\'\>\<=\;\|\&\(:]}
    keep=${frag%"$word"}
  fi
  local c
  COMPREPLY=()
  while IFS= read -r c; do
    [ -n "$c" ] && COMPREPLY+=("${c#"$keep"}")
  done < <(_xtap_probe_points "$frag")
  compopt -o nospace 2>/dev/null
}

_xtap() {
  local cur prev
  cur=${COMP_WORDS[COMP_CWORD]}
  prev=${COMP_WORDS[COMP_CWORD-1]}
  _xtap_cmd=${COMP_WORDS[0]}
  _xtap_release=
  local i
  for ((i = 1; i < COMP_CWORD - 1; i++)); do
    [ "${COMP_WORDS[i]}" = -r ] && _xtap_release=${COMP_WORDS[i + 1]}
  done
  case $prev in
    -r | --kernels)
      COMPREPLY=($(compgen -W "$(_xtap_releases)" -- "$cur")); return ;;
    -p)
      COMPREPLY=($(compgen -W '1 2 3 4 5' -- "$cur")); return ;;
    -D)
      COMPREPLY=($(compgen -W 'MAXACTION= MAXSTRINGLEN= MAXMAPENTRIES= MAXSKIPPED= MAXERRORS=
        MAXTRYLOCK= MAXNESTING= STP_BUFFER_SUBBUF_SIZE= STP_BUFFER_SUBBUFS=
        STP_OVERLOAD_INTERVAL= STP_OVERLOAD_THRESHOLD= STP_NO_OVERLOAD PERCENTILE_BITS=' -- "$cur"))
      compopt -o nospace 2>/dev/null
      return ;;
    -o | --sign-key | --sign-cert | --debuginfo | --folded | --flamegraph | --from-stacks)
      COMPREPLY=($(compgen -f -- "$cur")); return ;;
    -I | --sysroot)
      COMPREPLY=($(compgen -d -- "$cur")); return ;;
    -x)
      COMPREPLY=($(compgen -W "$(ls /proc | grep '^[0-9]')" -- "$cur")); return ;;
    -c)
      COMPREPLY=($(compgen -c -- "$cur")); return ;;
    -e | -m | -G | -T | -s | --vm-cpus | --vm-memory | -d)
      return ;;
  esac
  # A probe point: after -l/-L, or inside one (the word breaks at "( and :).
  for ((i = COMP_CWORD - 1; i > 0; i--)); do
    case ${COMP_WORDS[i]} in
      -l | -L) _xtap_complete_point; return ;;
      -*) break ;;
    esac
  done
  if [[ $cur == -* ]]; then
    local opts
    opts=$("$_xtap_cmd" --help 2>/dev/null | sed -nE 's/^ +(-[^ ]+).*/\1/p' | tr ',' '\n')
    [ -n "$opts" ] || opts='-e -p -r -m -k -v -D -c -x -o -s -T -g -u -w -G -I -l -L -V --vm --help --version'
    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
    return
  fi
  COMPREPLY=($(compgen -f -X '!*.stp' -- "$cur") $(compgen -d -- "$cur"))
}

_xtap_run() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
  case $prev in
    -o) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    -x) COMPREPLY=($(compgen -W "$(ls /proc | grep '^[0-9]')" -- "$cur")); return ;;
    -c) COMPREPLY=($(compgen -c -- "$cur")); return ;;
    -T) return ;;
    # -A NAME: the loaded xtap modules (a detached -F session among them).
    -A) COMPREPLY=($(compgen -W "$(ls /sys/kernel/debug 2>/dev/null | sed -n 's/^xtap_//p')" -- "$cur")); return ;;
  esac
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W '-o -S -b -F -A -c -x -T -v --format --cleanup --help' -- "$cur"))
    return
  fi
  COMPREPLY=($(compgen -f -X '!*.ko' -- "$cur") $(compgen -d -- "$cur"))
}

complete -F _xtap xtap
complete -F _xtap_run xtap-run
