# bash completion for models(1). The command itself answers what may come next (`models complete
# WORD...`, docs/cli.md), so completion follows its registries of engines, algorithms, presets and
# formats. Installed by `make install` where bash-completion looks; or: source data/models.bash

_models()
{
    local line=${COMP_LINE:0:COMP_POINT} pre="" i
    local -a words cands
    # The words as models sees them: bash's COMP_WORDS would split vat:policy=lru at ':' and '='.
    read -ra words <<< "$line"
    [[ $line =~ [[:space:]]$ ]] && words+=("")
    local cur=${words[${#words[@]}-1]}
    # bash replaces only what follows the last COMP_WORDBREAKS character of the word.
    for ((i = ${#cur} - 1; i >= 0; i--)); do
        if [[ $COMP_WORDBREAKS == *"${cur:i:1}"* ]]; then
            pre=${cur:0:i+1}
            break
        fi
    done
    local IFS=$'\n'
    cands=($("${words[0]}" complete "${words[@]:1}" 2>/dev/null))
    if [[ ${cands[0]} == @file ]]; then
        compopt -o filenames 2>/dev/null
        COMPREPLY=($(compgen -f -- "${cur#"$pre"}"))
        return 0
    fi
    COMPREPLY=("${cands[@]#"$pre"}")
    # A key= or NAME: is completed further, not ended with a space.
    if [[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == *[=:,] ]]; then
        compopt -o nospace 2>/dev/null
    fi
    return 0
}
complete -F _models models
