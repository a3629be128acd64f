module example.com/game

go 1.26
