# bash completion for cktune. Installed as share/bash-completion/completions/cktune.
# Verbs and their options are listed here by hand; keep in step with `cktune VERB --help`.
_cktune() {
  local cur prev verb i
  cur=${COMP_WORDS[COMP_CWORD]}
  prev=${COMP_WORDS[COMP_CWORD-1]}
  local verbs="discover capture bench tune compare report merge list ck-instances help version"
  local global="-v --verbose -q --quiet -h --help --version"

  verb=""
  for ((i = 1; i < COMP_CWORD; i++)); do
    case ${COMP_WORDS[i]} in
      -*) ;;
      *) verb=${COMP_WORDS[i]}; break ;;
    esac
  done
  if [[ -z $verb ]]; then
    if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W "$global" -- "$cur"))
    else COMPREPLY=($(compgen -W "$verbs" -- "$cur")); fi
    return
  fi

  # Values with a fixed set of choices; other option values are files.
  case $prev in
    --metric) COMPREPLY=($(compgen -W "us tflops" -- "$cur")); return ;;
    --role) COMPREPLY=($(compgen -W "dispatch baseline candidate" -- "$cur")); return ;;
    --arch) COMPREPLY=($(compgen -W "gfx942 gfx950" -- "$cur")); return ;;
    --model) COMPREPLY=($(compgen -W "deepseek-v3 deepseek-r1 qwen3-235b-a22b qwen3-coder-480b-a35b llama-4-maverick" -- "$cur")); return ;;
    --family|--dump-family|--gemm-family)
      COMPREPLY=($(compgen -W "a8w8 a8w8_bpreshuffle a8w8_blockscale a8w8_blockscale_bpreshuffle a4w4_blockscale batched_a8w8 batched_bf16 moe_2stages" -- "$cur")); return ;;
    -o|--output|--output-dir|--log-dir) COMPREPLY=($(compgen -f -- "$cur")); return ;;
  esac

  local opts
  case $verb in
    discover) opts="--json --python --python-timeout --no-python --no-git --no-smi" ;;
    capture) opts="-o --output-dir --json --dump-family --m-sweep --token-sweep --append --dry-run --model --model-config --tp --arch --gemm-family --no-fuse-shared-experts" ;;
    bench) opts="-i --family --config --device --mp -o --log-dir --tag --all-candidates --no-baseline --warmup --iters --min-time-ms --settle-ms --rotate --seed --errRatio --timeout --stall-timeout --against" ;;
    tune) opts="-i -o -o2 --profile_file --family --device --mp --gpus -k --splitK --no-splitK --errRatio --max-row-errRatio --warmup --iters --min-time-ms --settle-ms --rotate --seed --all --retry-failed --timeout --prepare-timeout --stall-timeout --libtype --kernels --exclude-kernels --min-improvement-pct --min_improvement_pct --screen-factor --retime-tolerance --tie-tolerance --shard --include-test-instances --no-progress --json" ;;
    compare) opts="--interleaved --metric --threshold --role --backend --json --csv" ;;
    report) opts="--before --after --tuned --counts --deploy-table --provenance --profile -o --output --html --metric --threshold --role --backend --peak-tflops --peak-tbps" ;;
    merge) opts="-o --output --check --json --strict --keep-order --max-err-ratio --max-moe-err --family" ;;
    list) opts="--device --family --kernels --include-test-instances --json" ;;
    ck-instances) opts="--family --json" ;;
    help) COMPREPLY=($(compgen -W "$verbs" -- "$cur")); return ;;
    *) opts="" ;;
  esac
  if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W "$opts $global" -- "$cur"))
  else COMPREPLY=($(compgen -f -- "$cur")); fi
}
complete -o filenames -F _cktune cktune
