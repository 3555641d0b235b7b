// Package experiment runs one job: it draws a repetition of a scenario and
// scores every pipeline of the sweep on it by test MSE and R².
package experiment
