# VRAMSCOPE_SANITIZE: empty, or a comma list such as "address,undefined".
if(VRAMSCOPE_SANITIZE)
  add_compile_options(-fsanitize=${VRAMSCOPE_SANITIZE} -fno-omit-frame-pointer)
  add_link_options(-fsanitize=${VRAMSCOPE_SANITIZE})
endif()
