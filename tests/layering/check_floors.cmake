# core/ stacks in floors (docs/architecture.md): a file may include headers of its own
# folder and of the folders on lower floors, nothing else of the project. Fails naming
# every include that goes up or sideways, or names a folder that is not on a floor.
#   cmake -DSOURCE_DIR=<repo> -P check_floors.cmake
set(floors
  "util io model proto" # 0: no trace semantics above plain data, bytes and threads
  "json"                # 1: streaming JSON, numbers, Python literals
  "parse"               # 2: the readers: Kineto, host ET
  "link"                # 3: host <-> device linking (Chakra's rules)
  "analysis"            # 4: computations of one rank and their result types
  "export"              # 5: writers of files from results (ET+, .et, overlay, SQLite)
  "report"              # 6: the JSON report and the summary text of one rank
  "session"             # 7: the per-rank pipeline: load, analyse, ask the writers
  "job"                 # 8: ranks through the pipeline plus the cross-rank layer
  "diff hang")          # 9: comparisons of runs, hang diagnosis
set(level 0)
foreach(floor IN LISTS floors)
  string(REPLACE " " ";" folders "${floor}")
  foreach(folder IN LISTS folders)
    set(floor_of_${folder} ${level})
  endforeach()
  math(EXPR level "${level} + 1")
endforeach()

file(GLOB core_dirs LIST_DIRECTORIES true RELATIVE "${SOURCE_DIR}/core" "${SOURCE_DIR}/core/*")
set(bad "")
set(count 0)
foreach(dir IN LISTS core_dirs)
  if(NOT IS_DIRECTORY "${SOURCE_DIR}/core/${dir}")
    continue()
  endif()
  if(NOT DEFINED floor_of_${dir})
    list(APPEND bad "core/${dir}/: a folder on no floor (add it to docs/architecture.md and this list)")
    continue()
  endif()
  file(GLOB files "${SOURCE_DIR}/core/${dir}/*.h" "${SOURCE_DIR}/core/${dir}/*.cpp")
  foreach(f IN LISTS files)
    math(EXPR count "${count} + 1")
    file(STRINGS "${f}" lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"[^\"]+\"")
    foreach(line IN LISTS lines)
      string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([^\"]+)\".*" "\\1" inc "${line}")
      string(REGEX REPLACE "^\\.\\./" "" inc "${inc}")
      if(NOT inc MATCHES "/")
        continue() # its own folder
      endif()
      string(REGEX REPLACE "/.*" "" target "${inc}")
      file(RELATIVE_PATH rel "${SOURCE_DIR}" "${f}")
      if(target STREQUAL dir)
        continue()
      endif()
      if(NOT DEFINED floor_of_${target})
        list(APPEND bad "${rel}: includes ${inc}, outside core/'s floors")
      elseif(NOT floor_of_${target} LESS floor_of_${dir})
        list(APPEND bad "${rel}: includes ${inc} (${target}, floor ${floor_of_${target}}) from ${dir} (floor ${floor_of_${dir}})")
      endif()
    endforeach()
  endforeach()
endforeach()
if(count EQUAL 0)
  message(FATAL_ERROR "no core sources found under ${SOURCE_DIR}/core")
endif()
if(bad)
  list(LENGTH bad n)
  string(REPLACE ";" "\n" bad "${bad}")
  message(FATAL_ERROR "${n} includes against core/'s floors:\n${bad}")
endif()
message(STATUS "floors ok: ${count} core files, every include one floor down or more")
