module github.com/tabula-zero/tabula

go 1.26
