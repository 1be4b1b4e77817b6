# Writes version.cc with the project version and the git commit of the source tree.
# Run at every build (cmake -P); configure_file rewrites the file only when its text
# changes, so an unchanged commit recompiles nothing.
# Inputs: SOURCE_DIR, OUTPUT, AORTA_VERSION.
set(AORTA_GIT_COMMIT unknown)
find_program(GIT git)
if(GIT AND EXISTS ${SOURCE_DIR}/.git)
  execute_process(COMMAND ${GIT} -C ${SOURCE_DIR} rev-parse --short=12 HEAD
                  OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc ERROR_QUIET)
  if(rc EQUAL 0 AND commit)
    set(AORTA_GIT_COMMIT ${commit})
    # Tracked files only: build outputs and ignored folders do not make a tree dirty.
    execute_process(COMMAND ${GIT} -C ${SOURCE_DIR} status --porcelain --untracked-files=no
                    OUTPUT_VARIABLE changes OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(changes)
      set(AORTA_GIT_COMMIT ${commit}-dirty)
    endif()
  endif()
endif()
configure_file(${SOURCE_DIR}/lib/common/version.cc.in ${OUTPUT} @ONLY)
