read -r name
greeting="Hello, $name!"
if [ "$1" = "--loud" ]; then
  echo "$greeting" | tr 'a-z' 'A-Z'
else
  echo "$greeting"
fi
